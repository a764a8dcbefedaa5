package dev.backstage.e2e.node;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyGoAwayFrame;
import io.netty.handler.codec.spdy.SpdyPingFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One port-forward connection after its upgrade, as the kubelet serves it (SPDY/3.1, protocol
 * {@code portforward.k8s.io}): the client opens two streams per forwarded connection, both with the headers
 * {@code port} and {@code requestID}, one of {@code streamType: error} and one of {@code streamType: data}. Each
 * valid stream gets a SYN_REPLY (an invalid one a RST_STREAM); once both of a request are open
 * ({@link PortForwardRequest}), the data stream is joined to a new TCP connection to the local port the pod's container port is mapped to ({@link PodPorts}). When
 * that connection ends, both streams are finished; when the client finishes the data stream, the connection's
 * output is shut down. A port the pod does not have, or a refused connection, is written on the error stream, then
 * both streams are reset, as the kubelet does. Pings from the client are answered.
 *
 * <p>All of it runs on the connection's event loop (the pod connections use the same one), so the state needs no
 * locks. No SPDY flow control: the Kubernetes client ({@code moby/spdystream}) sends no WINDOW_UPDATE and expects
 * none. A slow side holds the other back by turning off reads.
 */
final class PortForwardSession extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(PortForwardSession.class);
    /** How long the second stream of a request may take (the kubelet's default stream creation timeout). */
    private static final long STREAM_CREATION_TIMEOUT_SECONDS = 30;

    private final String namespace;
    private final String pod;
    private final PodPorts pods;
    private final Map<String, PortForwardRequest> byRequest = new HashMap<>();
    private final Map<Integer, PortForwardRequest> byStream = new HashMap<>();
    private ChannelHandlerContext ctx;

    PortForwardSession(String namespace, String pod, PodPorts pods) {
        this.namespace = namespace;
        this.pod = pod;
        this.pods = pods;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof SpdySynStreamFrame syn) {
                open(syn);
            } else if (msg instanceof SpdyDataFrame data) {
                data(data);
            } else if (msg instanceof SpdyRstStreamFrame reset) {
                PortForwardRequest forward = byStream.get(reset.streamId());
                if (forward != null) {
                    end(forward, false);
                }
            } else if (msg instanceof SpdyPingFrame ping) {
                if ((ping.id() & 1) == 1) { // the client's ping (odd ids); this side sends none
                    ctx.writeAndFlush(ping);
                    return;
                }
            } else if (msg instanceof SpdyGoAwayFrame) {
                ctx.close();
            }
        } finally {
            if (!(msg instanceof SpdyPingFrame ping && (ping.id() & 1) == 1)) {
                ReferenceCountUtil.release(msg);
            }
        }
    }

    private void open(SpdySynStreamFrame syn) {
        int stream = syn.streamId();
        String type = syn.headers().getAsString("streamtype");
        String portText = syn.headers().getAsString("port");
        int port = parsePort(portText);
        if (port < 1 || !("error".equals(type) || "data".equals(type))) {
            LOG.debug(
                    "port-forward {}/{}: stream {} refused (streamType {}, port {})",
                    namespace,
                    pod,
                    stream,
                    type,
                    portText);
            ctx.writeAndFlush(new DefaultSpdyRstStreamFrame(stream, SpdyStreamStatus.PROTOCOL_ERROR));
            return;
        }
        String requestId = syn.headers().getAsString("requestid");
        if (requestId == null || requestId.isEmpty()) { // an old client: the kubelet pairs streams 2 ids apart
            requestId = Integer.toString("error".equals(type) ? stream : stream - 2);
        }
        // The kubelet replies with no headers. Netty writes an empty header set as no header block at all, which
        // the Go SPDY framer cannot read (it answers with GOAWAY); so the reply carries the port header back.
        DefaultSpdySynReplyFrame reply = new DefaultSpdySynReplyFrame(stream);
        reply.headers().set("port", Integer.toString(port));
        ctx.writeAndFlush(reply);
        PortForwardRequest forward = byRequest.computeIfAbsent(requestId, this::newForward);
        if ("error".equals(type)) {
            forward.errorStream = stream;
        } else {
            forward.dataStream = stream;
            forward.port = port;
        }
        byStream.put(stream, forward);
        if (forward.readyToConnect()) {
            forward.connecting = true;
            connect(forward);
        }
    }

    private PortForwardRequest newForward(String requestId) {
        PortForwardRequest forward = new PortForwardRequest(requestId);
        ctx.executor()
                .schedule(
                        () -> {
                            if (!forward.connecting && !forward.ended) {
                                fail(
                                        forward,
                                        "timed out waiting for the error and data streams of request " + requestId);
                            }
                        },
                        STREAM_CREATION_TIMEOUT_SECONDS,
                        TimeUnit.SECONDS);
        return forward;
    }

    private void connect(PortForwardRequest forward) {
        Map<Integer, Integer> ports = pods.ports(namespace, pod).orElse(Map.of());
        Integer local = ports.get(forward.port);
        if (local == null) {
            fail(
                    forward,
                    "error forwarding port " + forward.port + " to pod " + namespace + "/" + pod + ": "
                            + (ports.isEmpty()
                                    ? "the pod's container does not run on node " + NodeAgent.NODE_NAME
                                    : "its container has no port " + forward.port + " (it has "
                                            + ports.keySet().stream().sorted().toList() + ")"));
            return;
        }
        Channel client = ctx.channel();
        new Bootstrap()
                .group(client.eventLoop())
                .channel(NioSocketChannel.class)
                .handler(new Upstream(forward))
                .connect(InetAddress.getLoopbackAddress(), local)
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        fail(
                                forward,
                                "error forwarding port " + forward.port + " to pod " + namespace + "/" + pod
                                        + ": connecting to its container port (local port " + local + "): "
                                        + f.cause().getMessage());
                        return;
                    }
                    if (forward.ended) {
                        f.channel().close();
                        return;
                    }
                    forward.connected(f.channel());
                });
    }

    private void data(SpdyDataFrame frame) {
        PortForwardRequest forward = byStream.get(frame.streamId());
        if (forward == null || forward.ended || frame.streamId() != forward.dataStream) {
            return; // the error stream carries nothing from the client; it finishes it at once
        }
        ByteBuf bytes = frame.content();
        if (bytes.isReadable()) {
            forward.fromClient(bytes.retain());
        }
        if (frame.isLast()) {
            forward.clientFinished();
        }
    }

    /** Writes {@code message} on the request's error stream, then resets both of its streams. */
    private void fail(PortForwardRequest forward, String message) {
        LOG.info("port-forward {}/{}: {}", namespace, pod, message);
        if (forward.errorStream != 0) {
            ctx.write(new DefaultSpdyDataFrame(
                    forward.errorStream, Unpooled.copiedBuffer(message, StandardCharsets.UTF_8)));
        }
        end(forward, true);
    }

    /** Forgets the request; {@code reset}: RST both streams, else finish both (the pod's connection ended). */
    private void end(PortForwardRequest forward, boolean reset) {
        if (forward.ended) {
            return;
        }
        forward.ended = true;
        for (int stream : new int[] {forward.dataStream, forward.errorStream}) {
            if (stream != 0) {
                ctx.write(
                        reset
                                ? new DefaultSpdyRstStreamFrame(stream, SpdyStreamStatus.CANCEL)
                                : new DefaultSpdyDataFrame(stream).setLast(true));
                byStream.remove(stream);
            }
        }
        ctx.flush();
        byRequest.remove(forward.requestId);
        forward.close();
    }

    /** The pod's side of one forwarded connection: what it sends goes out on the data stream. */
    private final class Upstream extends ChannelInboundHandlerAdapter {
        private final PortForwardRequest forward;

        Upstream(PortForwardRequest forward) {
            this.forward = forward;
        }

        @Override
        public void channelRead(ChannelHandlerContext up, Object msg) {
            if (forward.ended) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ctx.writeAndFlush(new DefaultSpdyDataFrame(forward.dataStream, (ByteBuf) msg));
        }

        @Override
        public void channelInactive(ChannelHandlerContext up) {
            end(forward, false);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext up) {
            ctx.channel().config().setAutoRead(up.channel().isWritable());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext up, Throwable cause) {
            LOG.debug("port-forward {}/{}: pod connection failed: {}", namespace, pod, cause.toString());
            up.close();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        boolean writable = ctx.channel().isWritable();
        byRequest.values().stream()
                .filter(f -> f.upstream() != null)
                .forEach(f -> f.upstream().config().setAutoRead(writable));
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        List.copyOf(byRequest.values()).forEach(f -> end(f, false));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("port-forward {}/{}: {}", namespace, pod, cause.toString());
        ctx.close();
    }

    private static int parsePort(String text) {
        try {
            int port = Integer.parseInt(text == null ? "" : text.strip());
            return port <= 65535 ? port : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
