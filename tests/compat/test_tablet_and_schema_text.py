"""Official behaviours of Tablet column names and of the schema texts, as the official 2.5.0 wheel
behaves (observed in its venv: a case-variant repeated name is accepted by Tablet() and refused by
write_tablet with InvalidArgumentError; schema reprs without quotes)."""

import pytest

import tsfile
from tsfile import ColumnCategory, ColumnSchema, TableSchema, Tablet, TimeseriesSchema, TSDataType
from tsfile.exceptions import ErrorCode, InvalidArgumentError


def _case_variant_tablet():
    tablet = Tablet(["value", "VALUE"], [TSDataType.INT64, TSDataType.INT64], max_row_num=1)
    tablet.add_timestamp(0, 1)
    tablet.add_value_by_index(0, 0, 10)
    tablet.add_value_by_index(1, 0, 20)
    return tablet


def test_a_tablet_naming_a_column_twice_is_refused_when_written_tree(tmp_path):
    path = tmp_path / "dup.tsfile"
    with tsfile.TsFileWriter(str(path)) as writer:
        writer.register_timeseries("root.device", TimeseriesSchema("value", TSDataType.INT64))
        tablet = _case_variant_tablet()
        tablet.set_table_name("root.device")
        with pytest.raises(InvalidArgumentError) as info:
            writer.write_tablet(tablet)
    assert info.value.code == ErrorCode.INVALID_ARGUMENT
    assert "unique" in info.value.message and "duplicate column 'value'" in str(info.value)
    assert isinstance(info.value, ValueError)
    with tsfile.TsFileReader(str(path)) as reader:  # nothing of the tablet was written
        assert reader.get_all_devices() == []


def test_a_tablet_naming_a_column_twice_is_refused_when_written_table(tmp_path):
    schema = TableSchema("t", [ColumnSchema("value", TSDataType.INT64, ColumnCategory.FIELD)])
    with tsfile.TsFileTableWriter(str(tmp_path / "dup.tsfile"), schema) as writer:
        with pytest.raises(InvalidArgumentError, match="unique"):
            writer.write_table(_case_variant_tablet())


def test_setting_a_value_by_a_repeated_name_is_refused():
    tablet = _case_variant_tablet()
    with pytest.raises(InvalidArgumentError, match="unique"):
        tablet.add_value_by_name("Value", 0, 1)


def test_from_arrays_refuses_case_variant_names_at_once():
    with pytest.raises(InvalidArgumentError, match="unique"):
        Tablet.from_arrays([1, 2], {"a": [1, 2], "A": [3, 4]})


def test_schema_texts_are_the_official_ones():
    schema = TableSchema(
        "test_table",
        [
            ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("value", TSDataType.DOUBLE, ColumnCategory.FIELD),
        ],
    )
    text = (
        "TableSchema(test_table, [ColumnSchema(device, STRING, TAG), "
        "ColumnSchema(value, DOUBLE, FIELD)])"
    )
    assert repr(schema) == text
    assert str(schema) == text


def test_schemas_read_from_a_file_print_the_official_text(tmp_path):
    """The reader fills each column's encoding and compression in; the text stays official."""
    schema = TableSchema(
        "test_table",
        [
            ColumnSchema("device", TSDataType.STRING, ColumnCategory.TAG),
            ColumnSchema("value", TSDataType.DOUBLE, ColumnCategory.FIELD),
        ],
    )
    path = str(tmp_path / "s.tsfile")
    with tsfile.TsFileTableWriter(path, schema) as w:
        w.write_arrays([1], {"device": "d", "value": [1.5]})
    with tsfile.TsFileReader(path) as r:
        text = repr(r.get_all_table_schemas()["test_table"])
    assert text == (
        "TableSchema(test_table, [ColumnSchema(device, STRING, TAG), "
        "ColumnSchema(value, DOUBLE, FIELD)])"
    )
