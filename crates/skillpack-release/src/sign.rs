//! Signing a release and checking signatures, with the publisher's ed25519 key in OpenSSH's
//! formats (`ssh-keygen -t ed25519` makes one; `ssh-key` reads it, passphrase-protected or
//! not):
//!
//! - an SSHSIG signature (`ssh-keygen -Y sign` / `-Y verify`, OpenSSH 8.1 and later, on
//!   every Linux host) over `SHA256SUMS` and over `manifest.json`, in the namespace
//!   [`NAMESPACE`], made by `ssh-key`;
//! - a DSSE envelope (the in-toto attestation framework's signature wrapper) around the
//!   provenance statement: a plain ed25519 signature over DSSE's pre-authentication
//!   encoding, by `ed25519-dalek` with the same key. DSSE is twenty lines of
//!   specification (`pae` below, and a JSON object); no maintained Rust crate writes it
//!   without a whole attestation framework (sigstore), so it is written here and checked in
//!   the tests by `securesystemslib`, the Python implementation the in-toto project keeps.
//!
//! Ed25519 signatures are deterministic: the same key and bytes give the same signature.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::Signer as _;
use serde_json::{Value, json};
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

/// The SSHSIG namespace of release signatures: `ssh-keygen -Y verify -n skillpack-release`.
/// A namespace of its own means no signature the key makes for anything else (a git
/// commit, a file signed with `-n file`) can pass for a release.
pub const NAMESPACE: &str = "skillpack-release";

/// The DSSE payload type of an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// The publisher's key, read and decrypted.
pub struct SigningKey {
    key: PrivateKey,
    dalek: ed25519_dalek::SigningKey,
}

impl SigningKey {
    /// Read an OpenSSH private key (`-----BEGIN OPENSSH PRIVATE KEY-----`). `from` names
    /// where it came from, for errors; `passphrase` decrypts a protected key.
    pub fn from_openssh(text: &str, from: &str, passphrase: Option<&str>) -> Result<Self, String> {
        let key = PrivateKey::from_openssh(text.trim()).map_err(|e| {
            format!(
                "{from}: not an OpenSSH private key ({e}) — make one with `ssh-keygen -t ed25519 -C <publisher> -f <file>` and give that file (not the .pub)"
            )
        })?;
        let key = if key.is_encrypted() {
            let passphrase = passphrase.ok_or_else(|| {
                format!(
                    "{from}: the key is protected by a passphrase — give it in SKILLPACK_SIGNING_KEY_PASSPHRASE"
                )
            })?;
            key.decrypt(passphrase)
                .map_err(|_| format!("{from}: the passphrase does not decrypt this key — check SKILLPACK_SIGNING_KEY_PASSPHRASE"))?
        } else {
            key
        };
        if key.algorithm() != Algorithm::Ed25519 {
            return Err(format!(
                "{from}: a {} key; releases are signed with ed25519 — make one with `ssh-keygen -t ed25519 -f <file>`",
                key.algorithm()
            ));
        }
        let pair = key
            .key_data()
            .ed25519()
            .ok_or_else(|| format!("{from}: no ed25519 key pair in it"))?;
        let dalek = ed25519_dalek::SigningKey::try_from(pair)
            .map_err(|e| format!("{from}: the ed25519 key pair is inconsistent: {e}"))?;
        Ok(SigningKey { key, dalek })
    }

    pub fn public(&self) -> TrustedKey {
        TrustedKey {
            key: self.key.public_key().clone(),
        }
    }

    /// An armored SSHSIG signature of `message` (`-----BEGIN SSH SIGNATURE-----`), as
    /// `ssh-keygen -Y sign -n skillpack-release` writes it.
    pub fn sshsig(&self, message: &[u8]) -> Result<String, String> {
        let signature = self
            .key
            .sign(NAMESPACE, HashAlg::Sha512, message)
            .map_err(|e| format!("cannot sign: {e}"))?;
        signature
            .to_pem(LineEnding::LF)
            .map_err(|e| format!("cannot write the signature: {e}"))
    }

    /// A DSSE envelope of `payload`, signed by this key (one line of JSON).
    pub fn dsse(&self, payload_type: &str, payload: &[u8]) -> Vec<u8> {
        let signature = self.dalek.sign(&pae(payload_type, payload));
        let envelope = json!({
            "payloadType": payload_type,
            "payload": STANDARD.encode(payload),
            "signatures": [{
                "keyid": self.public().keyid(),
                "sig": STANDARD.encode(signature.to_bytes()),
            }],
        });
        serde_json::to_vec(&envelope).expect("serde_json writes a Value to memory")
    }
}

/// DSSE's pre-authentication encoding: what is signed, so that the payload type is signed
/// too. <https://github.com/secure-systems-lab/dsse/blob/master/protocol.md>
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// A public key the verifier trusts, given out of band.
#[derive(Clone, Debug)]
pub struct TrustedKey {
    key: PublicKey,
}

/// The same key, whatever its comment.
impl PartialEq for TrustedKey {
    fn eq(&self, other: &Self) -> bool {
        self.key.key_data() == other.key.key_data()
    }
}

impl TrustedKey {
    /// An OpenSSH public key (`ssh-ed25519 AAAA… comment`, the `.pub` file) or a line of an
    /// `allowed_signers` file (`publisher@example ssh-ed25519 AAAA…`): the first line that
    /// holds an `ssh-ed25519` key.
    pub fn parse(text: &str, from: &str) -> Result<Self, String> {
        Self::parse_all(text, from).map(|mut keys| keys.swap_remove(0))
    }

    /// Every `ssh-ed25519` key in `text` (a `.pub` file, or an `allowed_signers` file with a
    /// line per key, as a host holds both keys while the publisher rotates). Options such as
    /// `valid-before` are not read: remove a retired key's line.
    pub fn parse_all(text: &str, from: &str) -> Result<Vec<Self>, String> {
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .map(|(number, line)| (number, line.trim()))
            .filter(|(_, line)| !line.starts_with('#'))
            .filter_map(|(number, line)| line.find("ssh-ed25519 ").map(|at| (number, &line[at..])))
            .collect();
        if lines.is_empty() {
            return Err({
                let private = text.contains("PRIVATE KEY");
                format!(
                    "{from}: no `ssh-ed25519 AAAA…` public key in it{} — give the publisher's .pub file (or a line of an allowed_signers file)",
                    if private {
                        " (this is a private key: never hand it to a host)"
                    } else {
                        ""
                    }
                )
            });
        }
        lines
            .into_iter()
            .map(|(number, line)| {
                PublicKey::from_openssh(line)
                    .map(|key| TrustedKey { key })
                    .map_err(|e| {
                        format!(
                            "{from}:{}: not a valid OpenSSH public key ({e})",
                            number + 1
                        )
                    })
            })
            .collect()
    }

    /// The key's OpenSSH fingerprint, `SHA256:<base64>` (`ssh-keygen -lf key.pub`). It is
    /// also the DSSE `keyid`.
    pub fn keyid(&self) -> String {
        self.key.fingerprint(HashAlg::Sha256).to_string()
    }

    /// The key as one `ssh-ed25519 AAAA…` line.
    pub fn openssh(&self) -> String {
        let mut key = self.key.clone();
        key.set_comment("");
        key.to_openssh().unwrap_or_default()
    }

    /// Check an armored SSHSIG signature of `message` named `what` (for errors).
    pub fn check_sshsig(&self, what: &str, armored: &[u8], message: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(armored)
            .map_err(|_| format!("{what}: not an armored SSH signature (not text)"))?;
        let signature = SshSig::from_pem(text.trim()).map_err(|e| {
            format!("{what}: not an SSH signature ({e}) — the file is damaged or is not one")
        })?;
        if signature.namespace() != NAMESPACE {
            return Err(format!(
                "{what}: made for namespace `{}`, not `{NAMESPACE}` — it is not a release signature",
                signature.namespace()
            ));
        }
        if signature.public_key() != self.key.key_data() {
            let by =
                PublicKey::new(signature.public_key().clone(), "").fingerprint(HashAlg::Sha256);
            return Err(format!(
                "{what}: signed by key {by}, not by the key you trust ({}) — the folder was signed by someone else; do not import it",
                self.keyid()
            ));
        }
        self.key
            .verify(NAMESPACE, message, &signature)
            .map_err(|_| {
                format!(
                    "{what}: the signature by {} does not match the signed file — it was changed after signing; do not import it",
                    self.keyid()
                )
            })
    }

    /// Check a DSSE envelope: the payload type, a signature by this key over the PAE.
    /// Returns the payload.
    pub fn check_dsse(&self, what: &str, envelope: &[u8]) -> Result<Vec<u8>, String> {
        let envelope: Value = serde_json::from_slice(envelope)
            .map_err(|e| format!("{what}: not a DSSE envelope (not JSON: {e})"))?;
        let field = |name: &str| {
            envelope[name]
                .as_str()
                .ok_or_else(|| format!("{what}: no `{name}` in the DSSE envelope"))
        };
        let payload_type = field("payloadType")?;
        if payload_type != PAYLOAD_TYPE {
            return Err(format!(
                "{what}: payload type `{payload_type}`, not an in-toto statement (`{PAYLOAD_TYPE}`)"
            ));
        }
        let payload = STANDARD
            .decode(field("payload")?)
            .map_err(|e| format!("{what}: the payload is not base64 ({e})"))?;
        let signatures = envelope["signatures"]
            .as_array()
            .ok_or_else(|| format!("{what}: no `signatures` in the DSSE envelope"))?;
        let verifying = ed25519_dalek::VerifyingKey::from_bytes(
            self.key
                .key_data()
                .ed25519()
                .map(|key| &key.0)
                .ok_or_else(|| format!("{what}: the trusted key is not ed25519"))?,
        )
        .map_err(|e| format!("the trusted key is not a valid ed25519 key: {e}"))?;
        let message = pae(payload_type, &payload);
        let mut others = Vec::new();
        for signature in signatures {
            let keyid = signature["keyid"].as_str().unwrap_or("");
            let Some(bytes) = signature["sig"]
                .as_str()
                .and_then(|sig| STANDARD.decode(sig).ok())
                .and_then(|sig| <[u8; 64]>::try_from(sig).ok())
            else {
                continue;
            };
            let sig = ed25519_dalek::Signature::from_bytes(&bytes);
            if verifying.verify_strict(&message, &sig).is_ok() {
                return Ok(payload);
            }
            others.push(if keyid.is_empty() { "?" } else { keyid }.to_owned());
        }
        if others.iter().any(|keyid| *keyid == self.keyid()) {
            return Err(format!(
                "{what}: the signature by {} does not match the statement — it was changed after signing; do not import it",
                self.keyid()
            ));
        }
        Err(format!(
            "{what}: signed by {}, not by the key you trust ({}) — do not import it",
            if others.is_empty() {
                "nobody".to_owned()
            } else {
                others.join(", ")
            },
            self.keyid()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throwaway key made here (never a key from a file of the repository).
    fn key() -> SigningKey {
        let pair = ssh_key::private::Ed25519Keypair::from_seed(&[7; 32]);
        let key = PrivateKey::new(pair.into(), "test").unwrap();
        let pem = key.to_openssh(LineEnding::LF).unwrap();
        SigningKey::from_openssh(&pem, "test key", None).unwrap()
    }

    #[test]
    fn pae_is_the_specification_s_example() {
        // DSSE protocol.md: PAE("http://example.com/HelloWorld", "hello world").
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
        );
    }

    #[test]
    fn signatures_verify_and_changes_are_refused() {
        let key = key();
        let trusted = TrustedKey::parse(&key.public().openssh(), "pub").unwrap();
        let sig = key.sshsig(b"sums").unwrap();
        assert_eq!(sig, key.sshsig(b"sums").unwrap(), "deterministic");
        trusted
            .check_sshsig("sig", sig.as_bytes(), b"sums")
            .unwrap();
        let error = trusted
            .check_sshsig("sig", sig.as_bytes(), b"other")
            .unwrap_err();
        assert!(error.contains("changed after signing"), "{error}");

        let envelope = key.dsse(PAYLOAD_TYPE, b"{}");
        assert_eq!(trusted.check_dsse("env", &envelope).unwrap(), b"{}");
        let mut value: Value = serde_json::from_slice(&envelope).unwrap();
        value["payload"] = json!(STANDARD.encode(b"{\"x\":1}"));
        let error = trusted
            .check_dsse("env", value.to_string().as_bytes())
            .unwrap_err();
        assert!(error.contains("changed after signing"), "{error}");
    }

    #[test]
    fn public_keys_come_as_pub_files_or_allowed_signers_lines() {
        let public = key().public().openssh();
        let from_signers =
            TrustedKey::parse(&format!("# team\npublisher@example {public}\n"), "x").unwrap();
        assert_eq!(from_signers, key().public());
        let other = SigningKey::from_openssh(
            &PrivateKey::new(
                ssh_key::private::Ed25519Keypair::from_seed(&[9; 32]).into(),
                "other",
            )
            .unwrap()
            .to_openssh(LineEnding::LF)
            .unwrap(),
            "other",
            None,
        )
        .unwrap()
        .public();
        let both = format!(
            "old@example {}\nnew@example valid-after=\"20270101\" {public}\n",
            other.openssh()
        );
        assert_eq!(
            TrustedKey::parse_all(&both, "allowed_signers").unwrap(),
            [other, key().public()]
        );
        let error = TrustedKey::parse("-----BEGIN OPENSSH PRIVATE KEY-----", "k").unwrap_err();
        assert!(error.contains("never hand it to a host"), "{error}");
    }
}
