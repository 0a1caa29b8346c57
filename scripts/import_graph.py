"""
Print the import graph between the workspace's packages and subpackages, and its 2-cycles.

A unit is a subpackage (``pyrua_agent.runtime``) or a module at a package's top level
(``pyrua_agent.errors``); a package's ``__init__`` is the package's own unit. Every
``import`` and ``from ... import`` in non-test modules counts, at module level or inside a
function or an ``if TYPE_CHECKING:`` block (such an edge is marked ``lazy``). Usage::

    python scripts/import_graph.py [--root DIR]    # DIR: a checkout (default: this one)
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path
import sys


def _unit(module: str) -> str:
    return '.'.join(module.split('.')[:2])


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for package in sorted((root / 'src').glob('pyrua_*/pyrua_*')):
        if not (package / '__init__.py').exists():
            continue
        for path in package.rglob('*.py'):
            rel = path.relative_to(package.parent).with_suffix('')
            if 'test' in rel.parts or rel.parts[-1] == '__main__':
                continue
            name = '.'.join(rel.parts)
            found[name.removesuffix('.__init__')] = path
    return found


def _imports(name: str, path: Path, is_package: bool) -> list[tuple[str, bool]]:
    """Return (imported module, lazy) for every import of a module."""
    tree = ast.parse(path.read_text())
    top_level = {id(node) for node in tree.body}
    base = name.split('.') if is_package else name.split('.')[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, id(node) not in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = base[:len(base) - node.level + 1]
                target = '.'.join(prefix + ([node.module] if node.module else []))
            else:
                target = node.module or ''
            lazy = id(node) not in top_level
            if node.module is None or node.level:
                out += [(f'{target}.{alias.name}', lazy) for alias in node.names]
            out.append((target, lazy))
    return out


def graph(root: Path) -> tuple[Counter, set[tuple[str, str]]]:
    """Return edge counts between units and the edges made only by lazy imports."""
    modules = _modules(root)
    edges: Counter = Counter()
    eager: set[tuple[str, str]] = set()
    for name, path in modules.items():
        for target, lazy in _imports(name, path, path.name == '__init__.py'):
            while target and target not in modules:
                target = target.rpartition('.')[0]
            if not target.startswith('pyrua_'):
                continue
            a, b = _unit(name), _unit(target)
            if a != b:
                edges[(a, b)] += 1
                if not lazy:
                    eager.add((a, b))
    lazy_only = {edge for edge in edges if edge not in eager}
    return edges, lazy_only


def main(argv: list[str]) -> int:
    """Print package-level edges, then every 2-cycle between units."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--root', type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args(argv)
    edges, lazy_only = graph(args.root)
    packages: Counter = Counter()
    for (a, b), n in edges.items():
        pa, pb = a.split('.')[0], b.split('.')[0]
        if pa != pb:
            packages[(pa, pb)] += n
    print('imports between packages (count of import statements):')
    for (a, b), n in sorted(packages.items()):
        print(f'  {a} -> {b}: {n}')
    print('2-cycles between units:')
    cycles = sorted({tuple(sorted(e)) for e in edges if (e[1], e[0]) in edges})
    for a, b in cycles:
        kinds = ['lazy' if e in lazy_only else 'eager' for e in ((a, b), (b, a))]
        print(f'  {a} <-> {b} ({a}->{b} {kinds[0]}, {b}->{a} {kinds[1]})')
    if not cycles:
        print('  none')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
