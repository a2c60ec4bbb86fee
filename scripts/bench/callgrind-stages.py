#!/usr/bin/env python3
"""Where a request's instructions go, from a callgrind dump of a server under load.

usage: callgrind-stages.py DUMP REQUESTS [GROUP]

Prints instructions per request grouped by where they are spent:
  - libcurl, libmicrohttpd: their own code (and libmicrohttpd's pool memset on its own line);
  - gqlgate's code by module (a stage of the request path), then by type (an exchange, the
    endpoint, the recorder, the JSON reader...), and specialisations of the standard library
    made for gqlgate's types;
  - the Swift runtime, the allocator and the rest of libc (retain/release, allocation, task
    frames, metadata, memcpy...) charged to whoever called them, in proportion to the calls'
    inclusive cost, through runtime-to-runtime calls: the `runtime` column.
With GROUP (a name from the first column), also that group's functions, by own cost.
The dump must come from `valgrind --tool=callgrind --dump-instr=no` (the default lines).
"""

import collections
import re
import subprocess
import sys


def read_dump(path):
    """Self cost per function, each function's object, and the inclusive cost of each call edge."""
    names = {}

    def name(kind, text):
        match = re.match(r"\((\d+)\)(?: (.*))?", text)
        if not match:
            return text
        key = (kind, match.group(1))
        if match.group(2) is not None:
            names[key] = match.group(2)
        return names.get(key, "?")

    own = collections.Counter()
    objects = {}
    callers = collections.defaultdict(collections.Counter)  # callee -> caller -> inclusive cost
    obj = function = callee = None
    in_call = False
    with open(path, encoding="utf-8", errors="replace") as dump:
        for line in dump:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            if line[0].isdigit() or line[0] in "+-*":
                fields = line.split()
                if len(fields) < 2:
                    continue
                cost = int(fields[1])
                if in_call:
                    callers[callee][function] += cost
                    in_call = False
                else:
                    own[function] += cost
                    objects[function] = obj
                continue
            key, _, value = line.partition("=")
            if key == "ob":
                obj = name("ob", value)
            elif key == "fn":
                function = name("fn", value)
            elif key == "cob":
                name("ob", value)
            elif key == "cfn":
                callee = name("fn", value)
            elif key == "calls":
                in_call = True
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                name("fl", value)
    return own, objects, callers


DEMANGLED = {}


def demangle(functions):
    """Fills DEMANGLED for the Swift names among `functions` (swift-demangle, when on PATH)."""
    names = [f for f in functions if f.startswith("$s")]
    try:
        out = subprocess.run(["swift-demangle", "--compact"], input="\n".join(names), capture_output=True, text=True,
                             check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return
    DEMANGLED.update(zip(names, out))


def swift_home(function):
    """gqlgate's group for a Swift function: module.Type (or module.function for a free one)."""
    match = re.match(r"\$s(\d+)(\w+)", function)
    if not match:
        return None
    length = int(match.group(1))
    module = match.group(2)[:length]
    if not module.startswith("GQLGate"):
        return f"{module} (package)"
    owner = re.split(r" in | of | for ", DEMANGLED.get(function, ""))[-1]
    found = re.search(r"(GQLGate\w*)\.(\w+)", owner)
    if found:
        return f"{found.group(1)}.{found.group(2)}"
    return module


def home(function, objects):
    """The group a function's own cost goes to; None for runtime code charged to its callers."""
    obj = (objects.get(function) or "").split("/")[-1]
    if "memset" in function and obj.startswith("libc"):
        return "memset (libmicrohttpd's pool, mostly)"
    if obj.startswith("libcurl"):
        return "libcurl"
    if obj.startswith("libmicrohttpd"):
        return "libmicrohttpd"
    if obj.startswith("lib") or obj.startswith("ld-"):
        return None
    if function.startswith("$s"):
        group = swift_home(function)
        if group:
            return group
        # An extension of a standard type in a gqlgate module, or standard library code
        # specialised for a gqlgate type: charged to that module and type.
        found = re.search(r"\(extension in (GQLGate\w*)\):Swift\.(\w+)|(GQLGate\w*)\.(\w+)", DEMANGLED.get(function, ""))
        if found:
            return f"{found.group(1)}.{found.group(2)}" if found.group(1) else f"{found.group(3)}.{found.group(4)}"
        return "standard library, specialised for gqlgate"
    if obj in ("gqlgate", "bridge-proxy") and not function.startswith("gqlgate_"):
        return None  # the Swift runtime (and libc++ parts), linked in with --static-swift-stdlib (gqlgate, or SB's bench binary)
    return f"{obj or '?'} (C)"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    own, objects, callers = read_dump(sys.argv[1])
    requests = int(sys.argv[2])
    demangle(set(own) | set(callers))
    memo = {}

    def shares(function, depth=0):
        """Fractions of a runtime function's cost per group, through its callers."""
        group = home(function, objects)
        if group:
            return {group: 1.0}
        if function in memo:
            return memo[function]
        obj = (objects.get(function) or "?").split("/")[-1].split(".so")[0]
        incoming = callers.get(function)
        if not incoming or depth > 12:
            return {f"{obj} (no caller seen)": 1.0}
        memo[function] = {f"{obj} (recursive)": 1.0}
        total = sum(incoming.values())
        result = collections.Counter()
        for caller, cost in incoming.items():
            for group, fraction in shares(caller, depth + 1).items():
                result[group] += fraction * cost / total
        memo[function] = result
        return result

    own_by_group = collections.Counter()
    runtime_by_group = collections.Counter()
    for function, cost in own.items():
        group = home(function, objects)
        if group:
            own_by_group[group] += cost
        else:
            for target, fraction in shares(function).items():
                runtime_by_group[target] += cost * fraction
    total = sum(own.values())
    groups = own_by_group + runtime_by_group

    def table(title, rows, own_rows, runtime_rows, limit):
        print(f"| {title} | per request | own code | runtime, allocator, libc it called |")
        print("| --- | ---: | ---: | ---: |")
        for group, cost in rows.most_common(limit):
            if cost / requests < 50:
                continue
            print(f"| {group} | {cost / requests / 1000:.1f}k | {own_rows[group] / requests / 1000:.1f}k "
                  f"| {runtime_rows[group] / requests / 1000:.1f}k |")

    def module_of(group):
        return group.split(".")[0] if group.startswith("GQLGate") else group

    modules, own_modules, runtime_modules = collections.Counter(), collections.Counter(), collections.Counter()
    for group, cost in groups.items():
        modules[module_of(group)] += cost
        own_modules[module_of(group)] += own_by_group[group]
        runtime_modules[module_of(group)] += runtime_by_group[group]
    print(f"{total / requests / 1000:.1f}k instructions a request ({requests} requests)\n")
    table("where (library, or gqlgate module)", modules, own_modules, runtime_modules, None)
    print()
    table("gqlgate, by type (top 25)", collections.Counter({g: c for g, c in groups.items() if g.startswith("GQLGate")}),
          own_by_group, runtime_by_group, 25)
    if len(sys.argv) > 3:
        wanted = sys.argv[3]
        print(f"\n{wanted}, own cost by function:\n")
        mine = collections.Counter({f: c for f, c in own.items() if home(f, objects) == wanted})
        for function, cost in mine.most_common(30):
            print(f"{cost / requests:8.0f}  {function[:150]}")


if __name__ == "__main__":
    main()
