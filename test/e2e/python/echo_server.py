#!/usr/bin/env python3
"""gRPC C-core's xDS-enabled server (Debian's python3-grpcio, gRFC A36) answering the echo method.

Usage: GRPC_XDS_BOOTSTRAP=bootstrap.json echo_server.py NAME PORT
It serves on 127.0.0.1:PORT once meshdesk sent the listener of that address, takes its TLS from it
(xds_server_credentials, plaintext when the listener has none), and answers
`<name>: <text> from <the caller's URI SANs, ", "-joined>` (`from -` for a plaintext caller).
Prints one JSON line once started.
"""
import json
import sys
from concurrent import futures

import grpc

ECHO_METHOD = "/meshdesk.test.EchoService/Echo"


def main() -> None:
    name, port = sys.argv[1], int(sys.argv[2])

    def echo(text: str, context: grpc.ServicerContext) -> str:
        sans = [value.decode() for value in context.auth_context().get("x509_subject_alternative_name", [])]
        return f"{name}: {text} from {', '.join('URI:' + san for san in sans) if sans else '-'}"

    handler = grpc.method_handlers_generic_handler(
        "meshdesk.test.EchoService",
        {"Echo": grpc.unary_unary_rpc_method_handler(echo, request_deserializer=lambda data: data.decode(), response_serializer=lambda text: text.encode())},
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), xds=True)
    server.add_generic_rpc_handlers((handler,))
    server.add_secure_port(f"127.0.0.1:{port}", grpc.xds_server_credentials(grpc.insecure_server_credentials()))
    server.start()
    print(json.dumps({"started": True}), flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
