#!/usr/bin/env python3
"""gRPC C-core's xDS client (Debian's python3-grpcio) calling an echo service through meshdesk.

Usage: GRPC_XDS_BOOTSTRAP=bootstrap.json echo_client.py xds:///echo [--xds-credentials]
Reads one line per call from stdin and prints one JSON line per result, so the test decides
when to call (e.g. after changing a Dataplane) and reads what happened. A line is the text to
send, or a JSON object {"text": ..., "metadata": {name: value}} to send call metadata too. With
--xds-credentials the channel takes its TLS from xDS (mesh mTLS, gRFC A29), plaintext when xDS gives none.
"""
import json
import sys

import grpc
import grpc.experimental

ECHO_METHOD = "/meshdesk.test.EchoService/Echo"


def main() -> None:
    if "--xds-credentials" in sys.argv[2:]:
        credentials = grpc.xds_channel_credentials(grpc.experimental.insecure_channel_credentials())
        channel = grpc.secure_channel(sys.argv[1], credentials)
    else:
        channel = grpc.insecure_channel(sys.argv[1])
    echo = channel.unary_unary(
        ECHO_METHOD,
        request_serializer=lambda text: text.encode(),
        response_deserializer=lambda data: data.decode(),
    )
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        text = line.strip()
        metadata = {}
        if text.startswith("{"):
            call = json.loads(text)
            text, metadata = call["text"], call.get("metadata", {})
        try:
            reply = echo(text, timeout=5, wait_for_ready=False, metadata=tuple(metadata.items()))
            print(json.dumps({"ok": True, "reply": reply}), flush=True)
        except grpc.RpcError as error:
            print(json.dumps({"ok": False, "code": error.code().name, "details": error.details()}), flush=True)


if __name__ == "__main__":
    main()
