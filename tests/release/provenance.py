"""Check a skillpack release folder's provenance with implementations nobody on skillpack
wrote: securesystemslib's DSSE envelope and ed25519 verification (the in-toto project's
library) and the in-toto attestation framework's own Statement and SLSA v1 Provenance
definitions (in-toto-attestation, strict protobuf JSON parsing: an unknown or misspelt
field fails).

    provenance.py FOLDER PUBLIC_KEY

PUBLIC_KEY is the publisher's OpenSSH `.pub` file. The key id is computed here, as
OpenSSH does (`SHA256:` and the unpadded base64 sha256 of the key blob). Prints what the
verified statement says, as JSON; exits 1 with the reason when anything fails.
"""

import base64
import hashlib
import json
import struct
import sys

from google.protobuf import json_format
from in_toto_attestation.predicates.provenance.v1 import provenance_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey


def ed25519_key(pub_text):
    blob = base64.b64decode(pub_text.split()[1])
    fields, at = [], 0
    while at < len(blob):
        (size,) = struct.unpack(">I", blob[at : at + 4])
        fields.append(blob[at + 4 : at + 4 + size])
        at += 4 + size
    if fields[0] != b"ssh-ed25519" or len(fields[1]) != 32:
        sys.exit("not an ssh-ed25519 public key")
    keyid = "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    return SSlibKey(keyid, "ed25519", "ed25519", {"public": fields[1].hex()})


def main(folder, pub_path):
    key = ed25519_key(open(pub_path).read())
    with open(f"{folder}/provenance.intoto.jsonl") as lines:
        envelope = Envelope.from_dict(json.loads(lines.readline()))
    if envelope.payload_type != "application/vnd.in-toto+json":
        sys.exit(f"payload type {envelope.payload_type}")
    try:
        envelope.verify([key], 1)
    except Exception as error:  # securesystemslib's VerificationError and its kin
        sys.exit(f"DSSE verification failed: {error}")

    statement = json_format.Parse(envelope.payload, statement_pb2.Statement())
    Statement.copy_from_pb(statement).validate()
    if statement.predicate_type != "https://slsa.dev/provenance/v1":
        sys.exit(f"predicate type {statement.predicate_type}")
    provenance = json_format.ParseDict(
        json.loads(envelope.payload)["predicate"], provenance_pb2.Provenance()
    )

    sums = {}
    for line in open(f"{folder}/SHA256SUMS"):
        digest, name = line.rstrip("\n").split("  ", 1)
        sums[name] = digest
    subjects = {s.name: s.digest["sha256"] for s in statement.subject}
    if subjects != sums:
        sys.exit(f"subjects {subjects} are not SHA256SUMS {sums}")
    for name, digest in sums.items():
        with open(f"{folder}/{name}", "rb") as file:
            if hashlib.sha256(file.read()).hexdigest() != digest:
                sys.exit(f"{name} does not have its digest")

    build = provenance.build_definition
    external = json_format.MessageToDict(build.external_parameters)
    internal = json_format.MessageToDict(build.internal_parameters)
    dependencies = {d.name or d.uri: dict(d.digest) for d in build.resolved_dependencies}
    catalog = [b for b in provenance.run_details.byproducts if b.name == "catalog"][0]
    print(
        json.dumps(
            {
                "keyid": key.keyid,
                "subjects": subjects,
                "buildType": build.build_type,
                "source": external["source"],
                "dirty": external["dirty"],
                "release": external["release"],
                "rustc": internal.get("rustc"),
                "target": internal.get("target"),
                "dependencies": dependencies,
                "builder": provenance.run_details.builder.id,
                "fingerprint": catalog.annotations["fingerprint"],
            },
            indent=1,
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
