# tsfile.codecs.rlbe: a serial codec module. The names every such module has (decode,
# decode_into, encode, HAS_SIMD, CODEC_ROWS) are declared once, in _serial_codec.pyi.
from tsfile.codecs._serial import SerialDecoder, SerialEncoder
from tsfile.codecs._serial_codec import *  # noqa: F403 (a stub re-exports them all)

class RlbeEncoder(SerialEncoder): ...
class RlbeDecoder(SerialDecoder): ...
