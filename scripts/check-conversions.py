#!/usr/bin/env python3
"""Finds conversions of floating-point values to integers that trap: `Int(x)`, `Int64(x.rounded())` and the like stop
the process when x is infinite, NaN or out of the type's range, and a value a client sent can be any of those.

A conversion is flagged when it has no label (`exactly:`, `clamping:`, `truncatingIfNeeded:` and `bitPattern:` do
not trap on such a value, or do not take one) and its argument looks floating: it calls `.rounded(`, `Double(`,
`floor(`, `ceil(`, `sqrt(`, `pow(`, `log(`, `log10(` or `exp(`, reads `timeIntervalSince1970` or `.seconds`, or holds a
decimal literal. Write it checked (`Int(exactly: x.rounded())`, clamping first), or, where the value cannot be
outside the range (bounded before, or made here), say so on the line or one of the three above it: `// bounded: <why>`.

    scripts/check-conversions.py [paths…]   (default: Sources)

A heuristic over the text: it cannot see types, so `Int(someDouble)` with none of those marks passes. It exists so
that the pattern that stopped services (`Int((grams * count).rounded())`) cannot come back unremarked.
"""
import pathlib
import re
import sys

CONVERSION = re.compile(r"(?<![\w.])(U?Int(?:8|16|32|64)?)\(")
LABELLED = re.compile(r"\s*(exactly|clamping|truncatingIfNeeded|bitPattern|ascii|littleEndian|bigEndian):")
FLOATING = re.compile(
    r"\.rounded\(|\bDouble\(|\bFloat\(|\bfloor\(|\bceil\(|\bsqrt\(|\bpow\(|\blog\(|\blog10\(|\bexp\(|timeIntervalSince1970|\.seconds\b|\b\d+\.\d+\b")
REMARK = "// bounded:"


def argument(line: str, start: int) -> str:
    """The text between the parenthesis at `start` and its match on the same line (the rest of the line if none)."""
    depth = 0
    for index in range(start, len(line)):
        if line[index] == "(":
            depth += 1
        elif line[index] == ")":
            depth -= 1
            if depth == 0:
                return line[start + 1:index]
    return line[start + 1:]


def findings(path: pathlib.Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        code = line.split("//", 1)[0] if "//" in line and '"' not in line.split("//", 1)[0] else line
        for match in CONVERSION.finditer(code):
            text = argument(code, match.end() - 1)
            if LABELLED.match(text) or not FLOATING.search(text):
                continue
            if REMARK in line or any(above.strip().startswith(REMARK) for above in lines[max(0, number - 4):number - 1]):
                continue
            yield number, f"{match.group(1)}({text})"


def main() -> int:
    roots = [pathlib.Path(argument) for argument in sys.argv[1:]] or [pathlib.Path(__file__).resolve().parent.parent / "Sources"]
    count = 0
    for root in roots:
        for path in sorted(root.rglob("*.swift") if root.is_dir() else [root]):
            for number, conversion in findings(path):
                count += 1
                print(f"{path}:{number}: {conversion} traps on an infinite, NaN or out-of-range value: "
                      f"write it checked (Int(exactly:), clamp first) or say why it cannot be out of range ({REMARK} …)", file=sys.stderr)
    print(f"trapping conversions: {count}")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
