"""Who the client is: the socket's peer, or what trusted proxies (TRUSTED_PROXIES) say."""

import ipaddress
from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=1)
def _trusted_networks(proxies: tuple[str, ...]):
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def _is_trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in net for net in _trusted_networks(tuple(settings.TRUSTED_PROXIES)))


def client_ip(request) -> str:
    """The client's address: the socket's peer, or what trusted proxies say it is."""
    return request.META.get("REMOTE_ADDR", "")


class TrustedProxyMiddleware:
    """Sets REMOTE_ADDR to the real client when the peer is a trusted proxy, so throttles and
    logs count clients, not proxies; a forged X-Forwarded-For from anyone else changes nothing.

    X-Forwarded-For is read from the right: each hop a trusted proxy appended is believed
    until the first address that is not a trusted proxy, which is the client.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        meta = request.META
        if settings.TRUSTED_PROXIES and _is_trusted(meta.get("REMOTE_ADDR", "")):
            for hop in reversed(meta.get("HTTP_X_FORWARDED_FOR", "").split(",")):
                hop = hop.strip()
                try:
                    ipaddress.ip_address(hop)
                except ValueError:
                    break  # garbage: keep the last address a trusted proxy vouched for
                meta["REMOTE_ADDR"] = hop
                if not _is_trusted(hop):
                    break
        else:
            meta.pop("HTTP_X_FORWARDED_PROTO", None)  # only a trusted proxy says "https"
        return self.get_response(request)
