#!/usr/bin/env python3
"""Mint OAuth access tokens for tests/operations.rs with PyJWT and cryptography (pinned in
tests/interop/requirements.txt): libraries nobody here wrote, so the server's JWT checks
are tested against tokens a real identity provider's library makes.

Writes one JSON object on stdout:
  {"jwks": {...}, "tokens": {"valid": "...", "expired": "...", ...}}

The JWKS holds the public halves of an RSA key (RS256) and an EC P-256 key (ES256). The
bad tokens: expired, not yet valid, wrong audience, wrong issuer, signed by a key outside
the set (same kid), `alg: none`, HS256 with the RSA public key as the HMAC secret (the
classic algorithm-confusion attack), and a valid token without the required scope.

Usage: mint_tokens.py --issuer URL --audience URL --scope SCOPE
"""

from __future__ import annotations

import argparse
import base64
import json
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--audience", required=True)
    parser.add_argument("--scope", required=True)
    args = parser.parse_args()

    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    rsa_jwk = json.loads(RSAAlgorithm.to_jwk(rsa_key.public_key()))
    rsa_jwk.update({"kid": "rsa-1", "alg": "RS256", "use": "sig"})
    ec_jwk = json.loads(ECAlgorithm.to_jwk(ec_key.public_key()))
    ec_jwk.update({"kid": "ec-1", "alg": "ES256", "use": "sig"})
    jwks = {"keys": [rsa_jwk, ec_jwk]}

    now = int(time.time())

    def claims(**overrides):
        base = {
            "iss": args.issuer,
            "aud": args.audience,
            "sub": "alice@example.com",
            "client_id": "claude-desktop",
            "scope": f"openid {args.scope}",
            "iat": now,
            "nbf": now - 5,
            "exp": now + 3600,
        }
        base.update(overrides)
        return {k: v for k, v in base.items() if v is not None}

    def rs256(payload, key=rsa_key, kid="rsa-1"):
        return jwt.encode(payload, key, algorithm="RS256", headers={"kid": kid})

    rsa_public_pem = rsa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    # PyJWT refuses to use a PEM public key as an HMAC secret (the attack this token
    # models), so the HS256 signature is computed by hand with the standard library.
    import hashlib
    import hmac

    hs_header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}).encode())
    hs_body = b64url(json.dumps(claims()).encode())
    hs_signature = b64url(
        hmac.new(rsa_public_pem, f"{hs_header}.{hs_body}".encode(), hashlib.sha256).digest()
    )

    tokens = {
        "valid": rs256(claims()),
        "valid_ec": jwt.encode(
            claims(client_id="ops-dashboard", sub="bob@example.com"),
            ec_key,
            algorithm="ES256",
            headers={"kid": "ec-1"},
        ),
        "expired": rs256(claims(iat=now - 7200, nbf=now - 7200, exp=now - 3600)),
        "not_yet_valid": rs256(claims(nbf=now + 3600, exp=now + 7200)),
        "wrong_audience": rs256(claims(aud="https://other.example.com/mcp")),
        "wrong_issuer": rs256(claims(iss="https://evil.example.com")),
        "wrong_key": rs256(claims(), key=stranger),
        "alg_none": jwt.encode(claims(), None, algorithm="none"),
        "hs256_confusion": f"{hs_header}.{hs_body}.{hs_signature}",
        "no_scope": rs256(claims(scope="openid")),
    }
    print(json.dumps({"jwks": jwks, "tokens": tokens}))


if __name__ == "__main__":
    main()
