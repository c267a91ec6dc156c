package io.sluice.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.sluice.common.Endpoint;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.server.EmbeddedServer;

/**
 * The controller of an embedded server (its service, authentication included) on a port of its own, with two
 * answers a test can change: {@code getURI} can name another segment store for a stream's segments for a while (as
 * a controller does before it learns that a segment moved), or name another segment store for everything, and
 * {@code getCurrentSegments} can hand out another delegation token (one that expired). Counts the {@code getURI} and
 * {@code getDelegationToken} calls. Thread-safe.
 */
final class ReroutingController implements AutoCloseable {
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Server grpc;
    /** Stream name → how many more getURI answers for its segments name {@link #misrouteTo}. */
    private final Map<String, AtomicInteger> misroutes = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> uriCalls = new ConcurrentHashMap<>();
    private final AtomicInteger tokenCalls = new AtomicInteger();
    private volatile Endpoint misrouteTo;
    /** Where every getURI answer points, whatever the stream; {@code null} for the real answers. */
    private volatile Endpoint everythingTo;
    private volatile String segmentsToken;

    ReroutingController(EmbeddedServer server) throws IOException {
        this.grpc = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .executor(executor)
                .addService(ServerInterceptors.intercept(server.controllerService().serviceDefinition(),
                        new Rewriter()))
                .build().start();
    }

    /** @return the URI to connect a client to */
    String uri() {
        return "tcp://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + grpc.getPort();
    }

    /** The next {@code times} getURI answers about segments of {@code stream} (a name in any scope) name {@code to}. */
    void misroute(String stream, Endpoint to, int times) {
        misrouteTo = to;
        misroutes.put(stream, new AtomicInteger(times));
    }

    /** From now on every getURI answer, for every segment of every stream, names {@code to}. */
    void misrouteEverything(Endpoint to) {
        everythingTo = to;
    }

    /** From now on getCurrentSegments answers carry {@code token} instead of the controller's. */
    void currentSegmentsToken(String token) {
        segmentsToken = token;
    }

    /** @return how many getURI calls asked about segments of {@code stream} */
    int uriCalls(String stream) {
        AtomicInteger n = uriCalls.get(stream);
        return n == null ? 0 : n.get();
    }

    /** @return how many getDelegationToken calls there were */
    int delegationTokenCalls() {
        return tokenCalls.get();
    }

    @Override
    public void close() throws InterruptedException {
        grpc.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        executor.shutdownNow();
    }

    /** @return the answer to send instead of {@code answer} to {@code request} of {@code method} */
    private Object rewrite(String method, Object request, Object answer) {
        switch (method) {
            case "getURI" -> {
                String stream = ((SegmentId) request).getStreamInfo().getStream();
                uriCalls.computeIfAbsent(stream, s -> new AtomicInteger()).incrementAndGet();
                Endpoint all = everythingTo;
                if (all != null) {
                    return NodeUri.newBuilder().setEndpoint(all.host()).setPort(all.port()).build();
                }
                AtomicInteger left = misroutes.get(stream);
                if (left != null && left.getAndDecrement() > 0) {
                    Endpoint to = misrouteTo;
                    return NodeUri.newBuilder().setEndpoint(to.host()).setPort(to.port()).build();
                }
                return answer;
            }
            case "getCurrentSegments" -> {
                String token = segmentsToken;
                return token == null ? answer : ((SegmentRanges) answer).toBuilder().setDelegationToken(token).build();
            }
            case "getDelegationToken" -> {
                tokenCalls.incrementAndGet();
                return answer;
            }
            default -> {
                return answer;
            }
        }
    }

    /** Remembers each call's request and passes its answer through {@link #rewrite}. */
    private final class Rewriter implements ServerInterceptor {
        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                           ServerCallHandler<Q, A> next) {
            String method = call.getMethodDescriptor().getBareMethodName();
            AtomicReference<Object> request = new AtomicReference<>();
            ServerCall<Q, A> rewriting = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                @Override
                public void sendMessage(A message) {
                    @SuppressWarnings("unchecked") // rewrite answers a message of the type it was given
                    A rewritten = (A) rewrite(method, request.get(), message);
                    super.sendMessage(rewritten);
                }
            };
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                    next.startCall(rewriting, headers)) {
                @Override
                public void onMessage(Q message) {
                    request.set(message);
                    super.onMessage(message);
                }
            };
        }
    }
}
