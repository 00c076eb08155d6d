/**
 * gRPC-java over the RDMA transport: {@link org.panamaverbs.netty.grpc.RdmaGrpc} builders, and the providers that
 * select it by configuration ({@code panamaverbs.grpc.transport=rdma}).
 */
package org.panamaverbs.netty.grpc;
