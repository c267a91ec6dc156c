/**
 * Internal: the client side of the Pravega controller gRPC API. {@link io.sluice.controller.ControllerClient} is the
 * blocking interface the rest of the client uses; {@link io.sluice.controller.GrpcControllerClient} implements it
 * over grpc-java; {@link io.sluice.controller.ProtoMapper} is the only class that maps protobuf messages to Sluice
 * values; {@link io.sluice.controller.SegmentEndpointCache} caches segment-store addresses. The generated protobuf
 * and gRPC classes live in {@code io.sluice.controller.grpc.v1}.
 */
package io.sluice.controller;
