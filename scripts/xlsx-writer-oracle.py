"""What openpyxl reads from workbooks examctl wrote (scripts/xlsx-interop.mjs,
test/xlsx/typed-workbooks.test.ts): per sheet its values (every cell as text, an empty cell ''),
each cell's type and value as openpyxl gives it (`typed`: [type name, text], a datetime in ISO
8601, an empty cell null), the value types openpyxl saw, the fill colour of each row, the number
formats of the cells that hold a value, the cells in the marked fill (FFC00000), the header's
boldness, the frozen pane, the auto-filter range and the column widths. Prints one JSON
document: {file: [sheet, ...]}."""
import json
import sys

import openpyxl


def fill_of(cell):
    if cell.fill is None or cell.fill.fill_type != 'solid':
        return None
    return cell.fill.fgColor.rgb


def typed(value):
    if value is None:
        return None
    text = value.isoformat() if hasattr(value, 'isoformat') else value if isinstance(value, str) else repr(value)
    return [type(value).__name__, text]


def sheet_summary(ws):
    rows = []
    typed_rows = []
    marked = []
    types = set()
    fills = []
    formats = set()
    for row in ws.iter_rows():
        values = []
        typed_rows.append([typed(cell.value) for cell in row])
        row_fills = set()
        for cell in row:
            value = cell.value
            if fill_of(cell) == 'FFC00000':
                marked.append(cell.coordinate)
            if value is not None:
                types.add(type(value).__name__)
            values.append('' if value is None else value if isinstance(value, str) else repr(value))
            row_fills.add(fill_of(cell))
            if value is not None:
                formats.add(cell.number_format)
        while values and values[-1] == '':
            values.pop()
        rows.append(values)
        fills.append(sorted(row_fills, key=str)[0] if len(row_fills) == 1 else sorted(map(str, row_fills)))
    header = list(ws.iter_rows(min_row=1, max_row=1))
    return {
        'name': ws.title,
        'rows': rows,
        'typed': typed_rows,
        'marked': marked,
        'types': sorted(types),
        'fills': fills,
        'formats': sorted(formats),
        'headerBold': all(cell.font.b for cell in header[0]) if header else None,
        'freeze': ws.freeze_panes,
        'filter': ws.auto_filter.ref,
        'columnFormats': sorted({dim.number_format for dim in ws.column_dimensions.values() if dim.min is not None}),
        'widths': [ws.column_dimensions[openpyxl.utils.get_column_letter(i + 1)].width for i in range(ws.max_column)],
    }


result = {}
for path in sys.argv[1:]:
    workbook = openpyxl.load_workbook(path)
    result[path] = [sheet_summary(ws) for ws in workbook.worksheets]
json.dump(result, sys.stdout)
