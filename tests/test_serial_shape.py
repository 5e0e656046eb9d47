"""The serial codecs' shared streaming decoder (tsfile/codecs/_serial.pyx, SerialDecoder): the
state it steps is the module's, opened by __init__; a decoder made without __init__ has none."""

import inspect

import numpy as np
import pytest

from tsfile.codecs import camel, chimp, rlbe, sprintz

DECODERS = [
    (rlbe, rlbe.RlbeDecoder, np.int64),
    (sprintz, sprintz.SprintzDecoder, np.int64),
    (chimp, chimp.ChimpDecoder, np.int64),
    (camel, camel.CamelDecoder, np.float64),
]


@pytest.mark.parametrize("module, cls, dtype", DECODERS, ids=lambda p: getattr(p, "__name__", ""))
def test_a_decoder_made_without_init_refuses_to_step(module, cls, dtype):
    decoder = cls.__new__(cls)
    with pytest.raises(TypeError, match="not initialised"):
        decoder.has_next()
    with pytest.raises(TypeError, match="not initialised"):
        next(decoder)


def test_bytes_consumed_of_a_decoder_made_without_init_refuses():
    # the state is allocated by __init__: reading it before was a NULL dereference (a crash)
    decoder = chimp.ChimpDecoder.__new__(chimp.ChimpDecoder)
    with pytest.raises(TypeError, match="not initialised"):
        _ = decoder.bytes_consumed


@pytest.mark.parametrize("module, cls, dtype", DECODERS, ids=lambda p: getattr(p, "__name__", ""))
def test_init_again_restarts_on_the_new_page(module, cls, dtype):
    first = module.encode(np.arange(5, dtype=dtype))
    second = module.encode(np.arange(10, 13, dtype=dtype))
    decoder = cls(first, dtype)
    assert next(decoder) == 0
    decoder.__init__(second, dtype)
    assert list(decoder) == [10, 11, 12]


@pytest.mark.parametrize("module, cls, dtype", DECODERS, ids=lambda p: getattr(p, "__name__", ""))
def test_a_refused_init_again_leaves_the_decoder_on_its_page(module, cls, dtype):
    # the dtype is valid and the data is not: the decoder stepped its old state as the new kind
    decoder = cls(module.encode(np.array([2**40, 2**41, 5], dtype=dtype)), dtype)
    other = np.float32 if module is not camel else np.float64
    with pytest.raises(TypeError):
        decoder.__init__(12345, other)
    assert list(decoder) == [2**40, 2**41, 5]


@pytest.mark.parametrize("module", [rlbe, sprintz, chimp, camel], ids=lambda m: m.__name__)
def test_the_streaming_classes_say_what_they_do(module):
    # Cython's embedsignature gives every class a docstring (its signature), so a subclass
    # without one of its own shows help() the signature alone, not the base's docstring
    name = module.__name__.rsplit(".", 1)[1].capitalize()
    assert "has_next()" in inspect.getdoc(getattr(module, f"{name}Decoder"))
    assert "flush()" in inspect.getdoc(getattr(module, f"{name}Encoder"))
