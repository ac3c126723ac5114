#!/usr/bin/env python3
"""A stand-in data source for the example: 40 sensor records, the same every time.

    records.py list        the record names, one a line
    records.py read -- NAME   one record (about 1 KB): a header and 24 readings
"""
import sys

COUNT = 40


def readings(number):
    value = number * 7919 % 1000
    for step in range(24):
        value = (value * 1103515245 + 12345) % 2147483648
        yield step, 18 + value % 900 / 100


def show(name):
    if not name.startswith("record-") or not name[7:].isdigit() or not 1 <= int(name[7:]) <= COUNT:
        print(f"no such record: {name} (use list_records)", file=sys.stderr)
        return 1
    number = int(name[7:])
    status = "ANOMALY" if number % 7 == 0 else "ok"
    print(f"{name}: sensor S{number:02d}, status {status}")
    for step, celsius in readings(number):
        print(f"  reading {step:02d} at 00:{step * 2:02d}: {celsius:6.2f} C  humidity {40 + (step * number) % 30} %")
    return 0


def main(argv):
    if argv[1:2] == ["list"]:
        for number in range(1, COUNT + 1):
            print(f"record-{number:02d}")
        return 0
    if len(argv) == 4 and argv[1:3] == ["read", "--"]:
        return show(argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
