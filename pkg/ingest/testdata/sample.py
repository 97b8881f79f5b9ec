#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Module docstring with a def inside:
def not_a_function():
    pass
"""

from __future__ import annotations
import os
import sys as system

CONSTANT = {"a": 1,
            "b": 2}

s = '''
class NotAClass:
    pass
'''


@decorator
@other.decorator(arg="x")
def decorated(a, b):
    """Docstring."""
    text = f"{a!r} {b['key']} {{literal}} {f'{a}'}"
    return text + "\
continued"


class Foo(Base,
          Mixin):
    """Foo docstring."""

    attr = 1

    # comment about method
    def method(self):
        return """
def fake():
"""

    @property
    def prop(self):
        return self.attr


if __name__ == "__main__":
    try:
        decorated(1, 2)
    except Exception:
        pass
    else:
        print("ok")
# trailing
