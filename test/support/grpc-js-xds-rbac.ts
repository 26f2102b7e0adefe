// @grpc/grpc-js-xds 1.14 registers its RBAC HTTP filter (gRFC A41) only when
// GRPC_XDS_EXPERIMENTAL_RBAC is "true" as it loads (its environment.js reads it once); without it,
// an XdsServer refuses (NACKs) every listener that carries MeshTrafficPermission's filter. Import
// this module before anything that imports @grpc/grpc-js-xds (vitest gives each test file fresh
// modules). C-core (python3-grpcio 1.51) applies RBAC without a flag.
process.env.GRPC_XDS_EXPERIMENTAL_RBAC = 'true';
