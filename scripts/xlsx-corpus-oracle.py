"""The oracle of the real-producers xlsx corpus (fixtures/xlsx/producers): every non-empty cell of
each workbook's first visible sheet as openpyxl reads it (cached formula results), written as the
text examctl gives a cell that no field reads (src/input/xlsx-cells.ts), so the two compare
exactly. Run once by `node scripts/test-interop.mjs --record-xlsx-corpus`; the normal suite
compares against the JSON it writes (test/xlsx/producers-corpus.test.ts).
Usage: python3 xlsx-corpus-oracle.py <dir> <out.json>"""
import datetime
import decimal
import json
import os
import sys

import openpyxl


def plain_number(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    # Shortest round-trip digits (as JavaScript's String(number)), never exponent form.
    return format(decimal.Decimal(repr(value)), 'f')


def text_of(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return {'text': 'true' if value else 'false'}
    if isinstance(value, (int, float)):
        return {'text': plain_number(value)}
    if isinstance(value, datetime.datetime):
        rounded = value + datetime.timedelta(microseconds=500_000) if value.microsecond >= 500_000 else value
        rounded = rounded.replace(microsecond=0)
        if rounded.time() == datetime.time(0, 0, 0):
            return {'text': rounded.date().isoformat()}
        return {'text': rounded.strftime('%Y-%m-%dT%H:%M:%S')}
    if isinstance(value, datetime.date):
        return {'text': value.isoformat()}
    if isinstance(value, datetime.time):
        # A time of day alone: examctl shows it on the 1900 system's day 0.
        if value.replace(microsecond=0) == datetime.time(0, 0, 0):
            return {'text': '1899-12-30'}
        return {'text': '1899-12-30T' + value.replace(microsecond=0).strftime('%H:%M:%S')}
    if isinstance(value, datetime.timedelta):
        return {'timedelta': value.total_seconds()}
    if isinstance(value, str):
        if value in ('#N/A', '#REF!', '#VALUE!', '#DIV/0!', '#NAME?', '#NUM!', '#NULL!'):
            return {'error': value}
        return {'text': value} if value != '' else None
    return {'other': repr(value)}


def main(directory, out):
    result = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.xlsx'):
            continue
        path = os.path.join(directory, name)
        try:
            workbook = openpyxl.load_workbook(path, data_only=True)
        except Exception as error:  # the oracle cannot read it: recorded, the test skips the file
            result[name] = {'oracleError': type(error).__name__}
            continue
        sheet = next((ws for ws in workbook.worksheets if ws.sheet_state == 'visible'), None)
        if sheet is None:
            result[name] = {'oracleError': 'no visible sheet'}
            continue
        cells = {}
        for row in sheet.iter_rows():
            for cell in row:
                reading = text_of(cell.value)
                if reading is not None:
                    cells[cell.coordinate] = reading
        result[name] = {'sheet': sheet.title, 'date1904': bool(workbook.epoch == datetime.datetime(1904, 1, 1)), 'cells': cells}
    with open(out, 'w', encoding='utf-8') as handle:
        json.dump({'oracle': 'openpyxl ' + openpyxl.__version__, 'files': result}, handle, ensure_ascii=False, indent=1, sort_keys=True)
        handle.write('\n')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
