package dev.backstage.e2e.node;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyVersion;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The kubelet's port-forward handshake, as the API server makes it for {@code pods/portforward} (kubectl's
 * WebSocket is tunnelled by the API server into this request): {@code POST /portForward/NS/POD} with
 * {@code Connection: Upgrade}, {@code Upgrade: SPDY/3.1} and {@code X-Stream-Protocol-Version: portforward.k8s.io}.
 * The answer is {@code 101 Switching Protocols}, after which the connection speaks SPDY/3.1
 * ({@link PortForwardSession}). As the kubelet: a pod this node does not run is a 404, a request without the
 * upgrade headers a 400, one without a protocol this node speaks a 403 naming the one it does; each with a one-line
 * body saying what is wrong.
 */
final class PortForwardUpgrade extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final String PREFIX = "/portForward/";
    static final String PROTOCOL = "portforward.k8s.io";
    static final String SPDY = "SPDY/3.1";
    private static final String PROTOCOL_HEADER = "X-Stream-Protocol-Version";

    private final PodPorts pods;

    PortForwardUpgrade(PodPorts pods) {
        this.pods = pods;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String[] path = new QueryStringDecoder(request.uri())
                .path()
                .substring(PREFIX.length())
                .split("/");
        if (path.length != 2 || path[0].isEmpty() || path[1].isEmpty()) {
            refuse(ctx, HttpResponseStatus.NOT_FOUND, "expected /portForward/NAMESPACE/POD, got " + request.uri());
            return;
        }
        String namespace = path[0];
        String pod = path[1];
        String connection =
                request.headers().get(HttpHeaderNames.CONNECTION, "").toLowerCase(Locale.ROOT);
        String upgrade = request.headers().get(HttpHeaderNames.UPGRADE, "").toLowerCase(Locale.ROOT);
        if (!connection.contains("upgrade") || !upgrade.contains(SPDY.toLowerCase(Locale.ROOT))) {
            refuse(
                    ctx,
                    HttpResponseStatus.BAD_REQUEST,
                    "unable to upgrade: port-forward needs Connection: Upgrade and Upgrade: " + SPDY);
            return;
        }
        boolean speaks = request.headers().getAll(PROTOCOL_HEADER).stream()
                .flatMap(v -> Arrays.stream(v.split(",")))
                .anyMatch(v -> PROTOCOL.equals(v.strip()));
        if (!speaks) {
            FullHttpResponse refused = text(
                    HttpResponseStatus.FORBIDDEN,
                    "unable to upgrade: unable to negotiate protocol: client supports "
                            + request.headers().getAll(PROTOCOL_HEADER) + ", server accepts [" + PROTOCOL + "]");
            refused.headers().set("X-Accepted-Stream-Protocol-Versions", PROTOCOL);
            ctx.writeAndFlush(refused).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        Optional<Map<Integer, Integer>> ports = pods.ports(namespace, pod);
        if (ports.isEmpty()) {
            refuse(
                    ctx,
                    HttpResponseStatus.NOT_FOUND,
                    "pod " + namespace + "/" + pod + " has no running container on node " + NodeAgent.NODE_NAME);
            return;
        }
        FullHttpResponse switching =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
        switching.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderNames.UPGRADE);
        switching.headers().set(HttpHeaderNames.UPGRADE, SPDY);
        switching.headers().set(PROTOCOL_HEADER, PROTOCOL);
        // Written through the HTTP encoder now (this is the event loop), then the pipeline speaks SPDY only.
        ctx.writeAndFlush(switching);
        ctx.pipeline()
                .addAfter(ctx.name(), "spdy", new SpdyFrameCodec(SpdyVersion.SPDY_3_1))
                .addAfter("spdy", "port-forward", new PortForwardSession(namespace, pod, pods));
        ctx.pipeline().remove("aggregator");
        ctx.pipeline().remove("http");
        ctx.pipeline().remove(this);
    }

    private static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        ctx.writeAndFlush(text(status, message)).addListener(ChannelFutureListener.CLOSE);
    }

    private static FullHttpResponse text(HttpResponseStatus status, String message) {
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, status, Unpooled.copiedBuffer(message + "\n", StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.headers()
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        response.headers().set(HttpHeaderNames.CONNECTION, "close");
        return response;
    }
}
