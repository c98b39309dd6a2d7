#!/usr/bin/env python3
"""Reads what a Core Data SQLite store says about its model, for tests that check Strata against
stores Core Data wrote (the SQLite store will read them itself; until then this is the reader).

  read-coredata-store.py metadata STORE      the store's Z_METADATA as JSON: entity hashes (hex),
                                             digest and checksum (base64, as stored)
  read-coredata-store.py cache STORE OUT     the raw bytes of Z_MODELCACHE.Z_CONTENT, as stored
  read-coredata-store.py plist STORE OUT     the raw bytes of Z_METADATA.Z_PLIST; prints {"uuid": Z_UUID}
  read-coredata-store.py readplist FILE      a metadata property list, as JSON (bytes in hex)
  read-coredata-store.py schema STORE        sqlite_master's CREATE statements and Z_PRIMARYKEY's
                                             entity rows, as JSON
  read-coredata-store.py rows STORE          every row of every entity and join table, as JSON:
                                             table → rows of column → value (REAL as
                                             {"real": x}, BLOB as {"blob": hex})
  read-coredata-store.py model STORE OUT     the model cached in Z_MODELCACHE (raw DEFLATE of a
                                             keyed archive), written as an .xcdatamodel `contents`
                                             file the way Xcode would write that model

Only Python's standard library: sqlite3, plistlib, zlib.
"""
import json, plistlib, sqlite3, sys, zlib
from xml.sax.saxutils import quoteattr

if sys.argv[1] == "metadata":
    plist = sqlite3.connect(sys.argv[2]).execute("select Z_PLIST from Z_METADATA").fetchone()[0]
    metadata = plistlib.loads(plist)
    print(json.dumps({
        "hashes": {name: value.hex() for name, value in metadata["NSStoreModelVersionHashes"].items()},
        "digest": metadata.get("NSStoreModelVersionHashesDigest"),
        "checksum": metadata.get("NSStoreModelVersionChecksumKey"),
        "framework": metadata.get("NSPersistenceFrameworkVersion"),
    }))
    sys.exit(0)

if sys.argv[1] == "schema":
    db = sqlite3.connect(sys.argv[2])
    print(json.dumps({
        "objects": [{"type": t, "name": n, "sql": s} for t, n, s in
                    db.execute("select type, name, sql from sqlite_master where sql is not null order by rowid")],
        "entities": [{"number": e, "name": n, "super": s} for e, n, s in
                     db.execute("select Z_ENT, Z_NAME, Z_SUPER from Z_PRIMARYKEY where Z_ENT < 16000 order by Z_ENT")],
    }))
    sys.exit(0)

if sys.argv[1] == "plist":
    uuid, blob = sqlite3.connect(sys.argv[2]).execute("select Z_UUID, Z_PLIST from Z_METADATA").fetchone()
    open(sys.argv[3], "wb").write(blob)
    print(json.dumps({"uuid": uuid}))
    sys.exit(0)

if sys.argv[1] == "readplist":
    metadata = plistlib.loads(open(sys.argv[2], "rb").read())
    print(json.dumps({key: (value.hex() if isinstance(value, bytes) else
                            {k: v.hex() for k, v in value.items()} if isinstance(value, dict) else value)
                      for key, value in metadata.items()}))
    sys.exit(0)

if sys.argv[1] == "rows":
    db = sqlite3.connect(sys.argv[2])
    def value(v):
        if isinstance(v, bytes): return {"blob": v.hex()}
        if isinstance(v, float): return {"real": v}
        return v
    bookkeeping = {"Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"}
    tables = [n for (n,) in db.execute("select name from sqlite_master where type = 'table'")
              if n.startswith("Z") and n not in bookkeeping]
    result = {}
    for table in tables:
        cursor = db.execute(f"select * from {table}")
        names = [d[0] for d in cursor.description]
        result[table] = [{n: value(v) for n, v in zip(names, row)} for row in cursor]
    print(json.dumps(result))
    sys.exit(0)

if sys.argv[1] == "cache":
    blob = sqlite3.connect(sys.argv[2]).execute("select Z_CONTENT from Z_MODELCACHE").fetchone()[0]
    open(sys.argv[3], "wb").write(blob)
    sys.exit(0)

store, out = sys.argv[2], sys.argv[3]
blob = sqlite3.connect(store).execute("select Z_CONTENT from Z_MODELCACHE").fetchone()[0]
archive = plistlib.loads(zlib.decompress(blob, -15))
objects = archive["$objects"]
def ref(x): return objects[x.data] if isinstance(x, plistlib.UID) else x
def cls(o): return ref(o["$class"])["$classname"]
def string(x):
    x = ref(x)
    return None if x == "$null" or not isinstance(x, str) else x
def values(d):
    d = ref(d)
    if "NS.objects" in d: return [ref(v) for v in d["NS.objects"]]
    v = ref(d["values"])
    return [ref(x) for x in (v["NS.objects"] if isinstance(v, dict) else v)]
TYPES = {0: "Undefined", 100: "Integer 16", 200: "Integer 32", 300: "Integer 64", 400: "Decimal", 500: "Double",
         600: "Float", 700: "String", 800: "Boolean", 900: "Date", 1000: "Binary", 1100: "UUID", 1200: "URI",
         1800: "Transformable", 2000: "Object ID"}
def flag(p, bit, key):
    P = ref(p.get("_P"))
    return bool(P & bit) if isinstance(P, int) else bool(ref(p.get(key, False)))
def expression(e):
    e = ref(e)
    if cls(e) == "NSKeyPathExpression":
        argument = values(e["NSArguments"])[0]
        return string(argument.get("NSKeyPath")) or string(argument.get("NSConstantValue"))
    if cls(e) == "NSFunctionExpression":
        fn = string(e["NSSelectorName"]).rstrip(":")
        return expression(values(e["NSArguments"])[0]) + ".@" + {"average": "avg"}.get(fn, fn)
    raise SystemExit("unknown expression " + cls(e))
lines = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', '<model type="com.apple.IDECoreDataModeler.DataModel">']
root = ref(archive["$top"]["root"])
for entity in values(root["NSEntities"]):
    name = string(entity["NSEntityName"])
    attrs = ' name=%s' % quoteattr(name)
    parent = ref(entity.get("NSSuperentity"))
    if isinstance(parent, dict): attrs += ' parentEntity=%s' % quoteattr(string(parent["NSEntityName"]))
    if ref(entity.get("NSIsAbstract")) is True: attrs += ' isAbstract="YES"'
    if string(entity.get("NSVersionHashModifier")): attrs += ' versionHashModifier=%s' % quoteattr(string(entity["NSVersionHashModifier"]))
    lines.append('  <entity%s>' % attrs)
    inherited = set()
    while isinstance(parent, dict):
        inherited |= {string(p["NSPropertyName"]) for p in values(parent["NSProperties"])}
        parent = ref(parent.get("NSSuperentity"))
    for p in values(entity["NSProperties"]):
        kind = cls(p)
        pname = string(p["NSPropertyName"])
        if pname in inherited: continue  # the archive repeats what a subentity inherits
        a = ' name=%s' % quoteattr(pname)
        if flag(p, 2, "NSIsOptional"): a += ' optional="YES"'
        if flag(p, 8, "NSIsTransient"): a += ' transient="YES"'
        if string(p.get("NSVersionHashModifier")): a += ' versionHashModifier=%s' % quoteattr(string(p["NSVersionHashModifier"]))
        if kind in ("NSAttributeDescription", "NSDerivedAttributeDescription"):
            a += ' attributeType=%s' % quoteattr(TYPES[ref(p["NSAttributeType"])])
            flags = ref(p.get("NSFlagsKey", 0)) or 0
            if flags & 4: a += ' allowsExternalBinaryDataStorage="YES"'
            if flags & 0x10: a += ' preserveAfterDeletion="YES"'
            if kind == "NSDerivedAttributeDescription":
                a += ' derived="YES" derivationExpression=%s' % quoteattr(expression(p["NSDerivationExpression"]))
            lines.append('    <attribute%s/>' % a)
        elif kind == "NSRelationshipDescription":
            maximum, minimum = ref(p["NSMaxCount"]), ref(p["NSMinCount"])
            a += ' destinationEntity=%s' % quoteattr(string(p["_NSDestinationEntityName"]))
            if string(p.get("_NSInverseRelationshipName")): a += ' inverseName=%s' % quoteattr(string(p["_NSInverseRelationshipName"]))
            if maximum != 1: a += ' toMany="YES"'
            if maximum not in (0, 1): a += ' maxCount="%d"' % maximum
            if maximum == 1: a += ' maxCount="1"'
            if minimum: a += ' minCount="%d"' % minimum
            if flag(p, 0x400, "NSIsOrdered"): a += ' ordered="YES"'
            lines.append('    <relationship%s/>' % a)
    tuples = ref(entity.get("NSUniqueTuples"))
    if isinstance(tuples, dict):
        lines.append('    <uniquenessConstraints>')
        for t in values(tuples):
            members = [m if isinstance(m, str) else string(m.get("NSPropertyName")) for m in (ref(x) for x in t.get("NS.objects", []))]
            lines.append('      <uniquenessConstraint>' + ''.join('<constraint value=%s/>' % quoteattr(m) for m in members) + '</uniquenessConstraint>')
        lines.append('    </uniquenessConstraints>')
    lines.append('  </entity>')
lines.append('</model>')
open(out, "w").write("\n".join(lines) + "\n")
