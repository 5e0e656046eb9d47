"""Third review of the writer: a file property that made the file unreadable.

add_tsfile_property("encryptLevel", b"1") replaced the writer's b"0": the file then declared
encrypted pages while they are plain, and our reader refused it as an encrypted file (the
official 2.5 writer ignores the call silently and writes b"0"). The writer does not encrypt, so
the three encryption properties keep the values that describe its pages (a loud refusal, not a
silent one); any other key is the user's."""

import numpy as np
import pytest

from tsfile.dataframe import read_table
from tsfile.errors import UnsupportedError
from tsfile.reader import TsFileReader
from tsfile.schema import ColumnSchema, TableSchema
from tsfile.types import ColumnCategory, TSDataType
from tsfile.writer import TsFileTableWriter

SCHEMA = TableSchema(
    "t",
    [
        ColumnSchema("d", TSDataType.STRING, ColumnCategory.TAG),
        ColumnSchema("v", TSDataType.INT64, ColumnCategory.FIELD),
    ],
)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("encryptLevel", b"1"),
        ("encryptType", b"org.apache.tsfile.encrypt.AES128"),
        ("encryptKey", b"0123456789abcdef"),
    ],
)
def test_encryption_properties_cannot_claim_encrypted_pages(tmp_path, key, value):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays(np.arange(3), {"d": "a", "v": np.arange(3)})
        with pytest.raises(UnsupportedError, match=f"{key}.*unencrypted"):
            w.add_tsfile_property(key, value)
        w.add_tsfile_property("owner", b"me")  # other keys are the user's
    assert read_table(path, "t")["v"].tolist() == [0, 1, 2]
    with TsFileReader(str(path)) as r:
        props = r.get_tsfile_properties()
    assert props["encryptLevel"] == b"0" and props["owner"] == b"me"


def test_encryption_properties_may_be_given_their_own_values(tmp_path):
    path = tmp_path / "a.tsfile"
    with TsFileTableWriter(path, SCHEMA) as w:
        w.write_arrays(np.arange(3), {"d": "a", "v": np.arange(3)})
        w.add_tsfile_property("encryptLevel", b"0")
        w.add_tsfile_property("encryptType", b"org.apache.tsfile.encrypt.UNENCRYPTED")
    assert read_table(path, "t")["v"].tolist() == [0, 1, 2]
