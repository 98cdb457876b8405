"""Keys and JWTs for the tests that act as an OAuth authorization server
(tests/mcp/oauth.py, tests/cluster.py): RSA and EC P-256 keys, their JWK
form, and compact JWTs signed by hand, so that a test can also make the
forgeries a JWT library refuses to make. Needs the `cryptography` package
(Debian: python3-cryptography)."""
import base64
import json

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b'=').decode()


def uint(n, size=None):
    return n.to_bytes(size or (n.bit_length() + 7) // 8, 'big')


class Key:
    """An RSA (RS256) or EC P-256 (ES256) signing key."""

    def __init__(self, kind, kid):
        self.kind, self.kid = kind, kid
        self.priv = rsa.generate_private_key(65537, 2048) if kind == 'RSA' else ec.generate_private_key(ec.SECP256R1())
        self.alg = 'RS256' if kind == 'RSA' else 'ES256'

    def jwk(self):
        pub = self.priv.public_key().public_numbers()
        if self.kind == 'RSA':
            return {'kty': 'RSA', 'kid': self.kid, 'use': 'sig', 'alg': 'RS256', 'n': b64u(uint(pub.n)),
                    'e': b64u(uint(pub.e))}
        return {'kty': 'EC', 'kid': self.kid, 'crv': 'P-256', 'x': b64u(uint(pub.x, 32)), 'y': b64u(uint(pub.y, 32))}

    def public_pem(self):
        return self.priv.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)

    def sign(self, data):
        if self.kind == 'RSA':
            return self.priv.sign(data, padding.PKCS1v15(), hashes.SHA256())
        r, s = decode_dss_signature(self.priv.sign(data, ec.ECDSA(hashes.SHA256())))
        return uint(r, 32) + uint(s, 32)  # JWS form: r || s


def jwt(key, header, claims, sig=None):
    """header.claims.signature; sig(data) replaces the key's signature."""
    data = (b64u(json.dumps(header).encode()) + '.' + b64u(json.dumps(claims).encode())).encode()
    return data.decode() + '.' + b64u(sig(data) if sig else key.sign(data))
