"""Checks of integer arguments shared by the public functions (the writer's options, the
reads' ``threads``, ``to_dataframe``'s ``max_row_num``): one definition of what an integer
argument accepts and of the errors that name it."""

import operator


def int_arg(name, value, minimum=None):
    """``value`` as an int, for the argument ``name``: an int or a numpy integer (not a bool, a
    float or a str: 1.5 threads is a mistake, not 1), at least ``minimum`` when one is given.
    TypeError / ValueError naming the argument otherwise (operator.index's own message does not
    say which argument was wrong)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {value!r}") from None
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value
