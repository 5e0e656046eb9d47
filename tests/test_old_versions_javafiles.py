"""TsFiles of older format versions found in public repositories (tests/fixtures/java/README.md):
refused with UnsupportedError naming the version, never read as damaged files. A file from
before format version 3 has a 6-character version string after the magic ("v0.3.0" here), which
was reported as "bad version byte 118" (CorruptDataError): a user could not tell an old file
from a broken one."""

from __future__ import annotations

import io

import javafix
import pytest

import tsfile
from tsfile.errors import CorruptDataError, UnsupportedError

V3 = ["v3TsFile.v3", "1653988688846-1-0-0.tsfile.v3", "go_test_tsfile_writer.tsfile.v3"]


@pytest.mark.parametrize("name", V3)
def test_version_3_is_unsupported(name):
    path = javafix.JAVA_DIR / name
    assert path.read_bytes()[:7] == b"TsFile\x03"
    with pytest.raises(UnsupportedError, match="format version 3 at file offset 6"):
        tsfile.TsFileReader(str(path))


def test_pre_v3_version_string_is_unsupported_not_corrupt():
    path = javafix.JAVA_DIR / "spark_test.tsfile.v0"
    data = path.read_bytes()
    assert data[:12] == b"TsFilev0.3.0" and data[-12:] == b"TsFilev0.3.0"
    want = r"version string 'v0\.3\.0'.*before format version 3"
    with pytest.raises(UnsupportedError, match=want):
        tsfile.TsFileReader(str(path))


@pytest.mark.parametrize("version", [b"000001", b"000002"])
def test_numbered_version_strings(tmp_path, version):
    # the 0.8 / 0.9-era header, on an otherwise empty file of the right length
    p = tmp_path / "old.tsfile"
    p.write_bytes(b"TsFile" + version + b"\x00" * 20 + b"TsFile")
    with pytest.raises(UnsupportedError, match=version.decode()):
        tsfile.TsFileReader(str(p))


@pytest.mark.parametrize("version", [b"000002", b"v0.3.0"])
def test_version_string_named_through_a_file_object(version):
    # a file object reads only the header and the tail at first: the 6 bytes of the version
    # string must be among them, or a large old file reads as "bad version byte 48"
    data = b"TsFile" + version + b"\x00" * 40_000 + b"TsFile"
    with pytest.raises(UnsupportedError, match=version.decode().replace(".", r"\.")):
        tsfile.TsFileReader(io.BytesIO(data))


def test_other_bad_version_byte_stays_corrupt(tmp_path):
    p = tmp_path / "bad.tsfile"
    p.write_bytes(b"TsFile\x09" + b"\x00" * 20 + b"TsFile")
    with pytest.raises(CorruptDataError, match="bad version byte 9"):
        tsfile.TsFileReader(str(p))
