#!/usr/bin/env python3
"""gRPC C-core's xDS client (Debian's python3-grpcio) calling an echo service through meshdesk.

Usage: GRPC_XDS_BOOTSTRAP=bootstrap.json echo_client.py xds:///echo [more targets to connect at once] [--xds-credentials]
Reads one line per call from stdin and prints one JSON line per result, so the test decides
when to call (e.g. after changing a Dataplane) and reads what happened. A line is the text to
send, or a JSON object {"text": ..., "metadata": {name: value}} to send call metadata too.
A JSON line with "count" is a batch: that many calls at once (to "target" when given, else the
command line's target; "timeout" in seconds), answered by one line {"batch": [result + "ms"]},
so a test of a thousand calls pays for one round trip through the pipe. With --xds-credentials
the channels take their TLS from xDS (mesh mTLS, gRFC A29), plaintext when xDS gives none.
"""
import json
import sys
import threading
import time

import grpc
import grpc.experimental

ECHO_METHOD = "/meshdesk.test.EchoService/Echo"


def result_of(call) -> dict:
    try:
        return {"ok": True, "reply": call()}
    except grpc.RpcError as error:
        return {"ok": False, "code": error.code().name, "details": error.details()}


def main() -> None:
    xds_credentials = "--xds-credentials" in sys.argv[1:]
    targets = [arg for arg in sys.argv[1:] if arg != "--xds-credentials"]
    methods = {}

    def echo_of(target: str):
        if target not in methods:
            if xds_credentials:
                credentials = grpc.xds_channel_credentials(grpc.experimental.insecure_channel_credentials())
                channel = grpc.secure_channel(target, credentials)
            else:
                channel = grpc.insecure_channel(target)
            # Connect now rather than on the first call, so the xDS stream is up before the test acts.
            channel.subscribe(lambda state: None, try_to_connect=True)
            methods[target] = channel.unary_unary(
                ECHO_METHOD,
                request_serializer=lambda text: text.encode(),
                response_deserializer=lambda data: data.decode(),
            )
        return methods[target]

    for target in targets:
        echo_of(target)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        text = line.strip()
        metadata = {}
        if text.startswith("{"):
            call = json.loads(text)
            text, metadata = call["text"], call.get("metadata", {})
            if "count" in call:
                print(json.dumps({"batch": batch(echo_of(call.get("target", targets[0])), text, metadata, call["count"], call.get("timeout", 5))}), flush=True)
                continue
        print(json.dumps(result_of(lambda: echo_of(targets[0])(text, timeout=5, wait_for_ready=False, metadata=tuple(metadata.items())))), flush=True)


def batch(echo, text: str, metadata: dict, count: int, timeout: float) -> list:
    """`count` concurrent calls; each result with its latency in ms, measured when its future completes."""
    results = [None] * count
    done = threading.Semaphore(0)

    def finish(index: int, started: float, future) -> None:
        results[index] = {**result_of(future.result), "ms": (time.monotonic() - started) * 1000}
        done.release()

    for index in range(count):
        started = time.monotonic()
        future = echo.future(text, timeout=timeout, wait_for_ready=False, metadata=tuple(metadata.items()))
        future.add_done_callback(lambda future, index=index, started=started: finish(index, started, future))
    for _ in range(count):
        done.acquire()
    return results


if __name__ == "__main__":
    main()
