#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the rules of the layout (ARCHITECTURE.md) on a checkout; exit 1 naming each breach.

  tools/check_layout.py [ROOT]      ROOT defaults to the checkout this script lies in

1. The library knows no command line: no string literal under src/ or include/ names an
   option ("--flag"), and no code there deals in process exit codes.
2. Modules depend one way: a file of module M includes only the headers of the modules M may
   use (MODULE_DEPS), through "cnnperf/<module>/<header>.hpp".
3. Only src/gpu/ includes CUDA, cuDNN, CUPTI or NVML headers.
4. Every public header lies in the folder of a module that has sources.
"""
import pathlib
import re
import sys

# Module -> the modules whose headers it may include (itself included).
MODULE_DEPS = {
    "common": {"common"},
    "model": {"common", "model"},
    "predict": {"common", "model", "predict"},
    "ptx": {"common", "model", "ptx"},
    "ml": {"common", "model", "predict", "ptx", "ml"},
    "profile": {"common", "model", "profile"},
    # The CUDA back end: the profile module's interface over the vendor libraries.
    "gpu": {"common", "model", "profile", "gpu"},
    "report": {"common", "model", "predict", "report"},
}
OPTION_RE = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# What dealing in exit codes looks like in C++.
EXIT_RE = re.compile(r"\b(exit_code|std::exit|_Exit|quick_exit|EXIT_SUCCESS|EXIT_FAILURE)\b|"
                     r"^\s*int\s+run_\w+\s*\(", re.MULTILINE)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
VENDOR_RE = re.compile(r"^(cuda|cudnn|cupti|nvml|cuda_runtime|driver_types)\w*\.h$|^cuda/")


def strip_comments(text):
    """Returns (code without comments, list of (line, string literal))."""
    code, literals, i, line = [], [], 0, 1
    while i < len(text):
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = len(text) if end < 0 else end + 2
            line += text.count("\n", i, end)
            code.append("\n" * text.count("\n", i, end))
            i = end
            continue
        raw = re.match(r'R"([^(\s]{0,16})\(', text[i:i + 20])
        if raw:
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = len(text) if end < 0 else end + len(close)
            literals.append((line, text[i:end]))
            line += text.count("\n", i, end)
            code.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                literals.append((line, text[i:j + 1]))
            code.append(c + c)
            i = j + 1
            continue
        if c == "\n":
            line += 1
        code.append(c)
        i += 1
    return "".join(code), literals


def module_of(rel):
    parts = rel.parts
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ("include", "cnnperf") and len(parts) > 3:
        return parts[2]
    return None


def check(root):
    problems = []
    files = sorted(p for d in ("src", "include") for p in (root / d).rglob("*")
                   if p.suffix in (".cpp", ".hpp", ".h", ".in") and p.is_file())
    if not files:
        return [f"{root}: no source under src/ or include/"]
    for path in files:
        rel = path.relative_to(root)
        text = path.read_text(encoding="utf-8", errors="replace")
        code, literals = strip_comments(text)
        for line, literal in literals:
            match = OPTION_RE.search(literal)
            if match:
                problems.append(f"{rel}:{line}: a string names the option '{match.group(0)}'; "
                                "the library names the parameter (ParameterError), the "
                                "command in tools/cnnperf/ names the option")
        for match in EXIT_RE.finditer(code):
            line = code.count("\n", 0, match.start()) + 1
            problems.append(f"{rel}:{line}: '{match.group(0).strip()}': exit codes belong to "
                            "tools/cnnperf/")
        module = module_of(rel)
        in_gpu = rel.parts[:2] == ("src", "gpu")
        for match in INCLUDE_RE.finditer(text):
            header = match.group(2)
            line = text.count("\n", 0, match.start()) + 1
            if VENDOR_RE.search(header.split("/")[-1]) or header.startswith("cuda/"):
                if not in_gpu:
                    problems.append(f"{rel}:{line}: includes <{header}>; only src/gpu/ "
                                    "includes CUDA, cuDNN, CUPTI or NVML headers")
                continue
            if not header.startswith("cnnperf/"):
                continue
            parts = header.split("/")
            if len(parts) != 3:
                problems.append(f"{rel}:{line}: includes \"{header}\"; expected "
                                "\"cnnperf/<module>/<header>.hpp\"")
                continue
            if module in MODULE_DEPS and parts[1] not in MODULE_DEPS[module]:
                problems.append(f"{rel}:{line}: module '{module}' includes \"{header}\"; "
                                f"'{module}' may use {sorted(MODULE_DEPS[module])}")
        if rel.parts[0] == "include":
            if module is None:
                problems.append(f"{rel}: a public header outside include/cnnperf/<module>/")
            elif not (root / "src" / module).is_dir():
                problems.append(f"{rel}: include/cnnperf/{module}/ has no src/{module}/")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                        pathlib.Path(__file__).resolve().parent.parent)
    problems = check(root)
    for p in problems:
        print(f"check_layout: {p}", file=sys.stderr)
    if problems:
        print(f"check_layout: {len(problems)} breach(es) of ARCHITECTURE.md's rules",
              file=sys.stderr)
        return 1
    print("check_layout: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
