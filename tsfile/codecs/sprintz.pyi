# tsfile.codecs.sprintz: a serial codec module. The names every such module has (decode,
# decode_into, encode, HAS_SIMD, CODEC_ROWS) are declared once, in _codec_module.pyi.
from tsfile.codecs._codec_module import *  # noqa: F403 (a stub re-exports them all)
from tsfile.codecs._serial import SerialDecoder, SerialEncoder

class SprintzEncoder(SerialEncoder): ...
class SprintzDecoder(SerialDecoder): ...
