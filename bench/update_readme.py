#!/usr/bin/env python3
# update_readme.py - replace the block between `<!-- bench:begin -->` and
# `<!-- bench:end -->` in README.md with a summary of a bench run.
#   python3 bench/update_readme.py bench/out/results.json [README.md]
# Fails (exit 1) when the markers are missing, leaving the file untouched.
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import readme_block  # noqa: E402

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def main():
    if len(sys.argv) < 2:
        print("usage: update_readme.py results.json [README.md]", file=sys.stderr)
        return 2
    res = json.load(open(sys.argv[1]))
    readme = sys.argv[2] if len(sys.argv) > 2 else "README.md"
    text = open(readme).read()
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        print("update_readme.py: %s has no %s ... %s block" % (readme, BEGIN, END), file=sys.stderr)
        return 1
    new = text[:b + len(BEGIN)] + "\n" + readme_block(res) + "\n" + text[e:]
    if new != text:
        with open(readme + ".tmp", "w") as f:
            f.write(new)
        os.replace(readme + ".tmp", readme)
    print("update_readme.py: %s %s" % (readme, "updated" if new != text else "unchanged"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
