// SPDX-License-Identifier: Apache-2.0
// Placeholder translation unit so the target exists before its sources land; remove when adding real sources.
namespace cnnperf::detail { [[maybe_unused]] static const int kPlaceholder = 0; }
