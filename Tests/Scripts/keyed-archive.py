#!/usr/bin/env python3
"""An NSKeyedArchiver reader and writer independent of Strata, on Python's plistlib, for tests.

  keyed-archive.py decode ARCHIVE    the archive's root as tagged JSON on standard output, and
                                     its layout: {"value": …, "layout": {…}}
  keyed-archive.py encode OUT        writes an archive of the tagged JSON on standard input, its
                                     objects in another order than Foundation's: each object's
                                     children and class before it, `$null` first

Tagged JSON: {"string": s}, {"integer": n}, {"double": x}, {"boolean": b}, {"data": base64},
{"date": seconds since 2001}, {"url": s}, {"uuid": s}, {"null": true}, {"decimal": s},
{"array": [...]}, {"orderedSet": [...]}, {"set": [...]}, {"dictionary": [[key, value], ...]}.
"""
import base64, json, plistlib, sys, uuid
from decimal import Decimal
from datetime import datetime, timezone

EPOCH_2001 = 978307200


def decode(path):
    archive = plistlib.load(open(path, "rb"))
    objects = archive["$objects"]
    layout = {
        "archiver": archive.get("$archiver"), "version": archive.get("$version"),
        "first": objects[0], "root": archive["$top"]["root"].data,
        "classes": sorted({objects[o["$class"].data]["$classname"] for o in objects if isinstance(o, dict) and "$class" in o}),
        "chains": {o["$classname"]: o["$classes"] for o in objects if isinstance(o, dict) and "$classname" in o},
        "fields": sorted({k for o in objects if isinstance(o, dict) and "$class" in o for k in o}),
    }

    def value(uid):
        o = objects[uid]
        if o == "$null":
            return {"null": True}
        if isinstance(o, bool):
            return {"boolean": o}
        if isinstance(o, int):
            return {"integer": o}
        if isinstance(o, float):
            return {"double": o}
        if isinstance(o, str):
            return {"string": o}
        if isinstance(o, bytes):
            return {"data": base64.b64encode(o).decode()}
        name = objects[o["$class"].data]["$classname"]
        refs = lambda key: [value(r.data) for r in o[key]]
        if name in ("NSArray", "NSMutableArray"):
            return {"array": refs("NS.objects")}
        if name in ("NSOrderedSet", "NSMutableOrderedSet"):
            return {"orderedSet": refs("NS.objects")}
        if name in ("NSSet", "NSMutableSet"):
            return {"set": refs("NS.objects")}
        if name in ("NSDictionary", "NSMutableDictionary"):
            return {"dictionary": [list(p) for p in zip(refs("NS.keys"), refs("NS.objects"))]}
        if name == "NSDate":
            return {"date": o["NS.time"]}
        if name == "NSURL":
            assert o["NS.base"].data == 0
            return {"url": objects[o["NS.relative"].data]}
        if name == "NSUUID":
            return {"uuid": str(uuid.UUID(bytes=o["NS.uuidbytes"])).upper()}
        if name == "NSNull":
            return {"null": True}
        if name in ("NSDecimalNumber", "NSDecimalNumberPlaceholder"):
            words = o["NS.mantissa"]
            mantissa = sum((words[2 * i] | words[2 * i + 1] << 8) << (16 * i) for i in range(o["NS.length"]))
            number = Decimal(mantissa).scaleb(o["NS.exponent"])
            return {"decimal": str(-number if o["NS.negative"] else number)}
        raise ValueError("unknown class " + name)

    return {"value": value(archive["$top"]["root"].data), "layout": layout}


def encode(tree, path):
    objects = ["$null"]
    classes = {}

    def cls(name):
        if name not in classes:
            objects.append({"$classname": name, "$classes": [name, "NSObject"]})
            classes[name] = len(objects) - 1
        return plistlib.UID(classes[name])

    def add(node):
        (kind, v), = node.items()
        if kind == "null":
            c = cls("NSNull")
            objects.append({"$class": c})
        elif kind in ("string", "integer", "boolean", "double"):
            objects.append(v)  # not shared: Foundation shares equal ones, a reader must not care
        elif kind == "data":
            objects.append(base64.b64decode(v))
        elif kind == "date":
            c = cls("NSDate")
            objects.append({"NS.time": float(v), "$class": c})
        elif kind == "url":
            objects.append(v)
            relative = plistlib.UID(len(objects) - 1)
            c = cls("NSURL")
            objects.append({"NS.base": plistlib.UID(0), "NS.relative": relative, "$class": c})
        elif kind == "uuid":
            c = cls("NSUUID")
            objects.append({"NS.uuidbytes": uuid.UUID(v).bytes, "$class": c})
        elif kind in ("array", "orderedSet", "set"):
            refs = [add(item) for item in v]
            c = cls({"array": "NSMutableArray", "orderedSet": "NSOrderedSet", "set": "NSMutableSet"}[kind])
            objects.append({"NS.objects": refs, "$class": c})
        elif kind == "dictionary":
            keys = [add(k) for k, _ in v]
            values = [add(x) for _, x in v]
            c = cls("NSMutableDictionary")
            objects.append({"NS.keys": keys, "NS.objects": values, "$class": c})
        elif kind == "decimal":
            number = Decimal(v)
            sign, digits, exponent = number.as_tuple()
            mantissa = int("".join(map(str, digits)) or "0")
            words = []
            while mantissa:
                words.append(mantissa & 0xFFFF)
                mantissa >>= 16
            raw = b"".join(w.to_bytes(2, "little") for w in words + [0] * (8 - len(words)))
            c = cls("NSDecimalNumber")
            objects.append({"NS.exponent": exponent, "NS.length": len(words), "NS.negative": bool(sign),
                            "NS.compact": True, "NS.mantissa.bo": 1, "NS.mantissa": raw, "$class": c})
        else:
            raise ValueError(kind)
        return plistlib.UID(len(objects) - 1)

    root = add(tree)
    archive = {"$objects": objects, "$top": {"root": root}, "$archiver": "NSKeyedArchiver", "$version": 100000}
    with open(path, "wb") as f:
        plistlib.dump(archive, f, fmt=plistlib.FMT_BINARY, sort_keys=False)


if sys.argv[1] == "decode":
    print(json.dumps(decode(sys.argv[2])))
elif sys.argv[1] == "encode":
    encode(json.load(sys.stdin), sys.argv[2])
