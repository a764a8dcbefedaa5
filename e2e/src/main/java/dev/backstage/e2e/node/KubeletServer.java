package dev.backstage.e2e.node;

import dev.backstage.operator.certificates.CertificateIssuer;
import dev.backstage.operator.certificates.KeyAndCertificate;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's port as the API server reaches it (the Node's {@code daemonEndpoints.kubeletEndpoint.port}, over
 * HTTPS): {@code /portForward/NS/POD} is answered here ({@link PortForwardUpgrade}, then {@link PortForwardSession}),
 * so {@code kubectl port-forward} works on this node; every other request ({@code /containerLogs/…}) is relayed as
 * bytes to the log endpoint ({@link PodLogServer}, plain HTTP on loopback). Which of the two a connection is for is
 * decided from its first request line.
 *
 * <p>Listens on loopback only, with a certificate of its own CA: the local API server is given no kubelet CA
 * ({@code --kubelet-certificate-authority}), so it does not verify it, and it presents no client certificate, so
 * none is asked for. Anyone on this machine can reach the pods' ports directly anyway.
 */
final class KubeletServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KubeletServer.class);
    private static final int MAX_REQUEST_LINE = 8192;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(
            2, new DefaultThreadFactory("kubelet-port", true), NioIoHandler.newFactory());
    private final Channel server;
    private final int logPort;

    /**
     * @param logPort the local port of the plain-HTTP log endpoint
     * @param pods    the ports of the pods this node runs
     */
    KubeletServer(int logPort, PodPorts pods) throws IOException {
        this.logPort = logPort;
        SslContext tls = tls();
        try {
            server = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            channel.pipeline()
                                    .addLast("tls", tls.newHandler(channel.alloc()))
                                    .addLast("router", new Router(pods));
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .sync()
                    .channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully();
            throw new IOException("interrupted while binding the kubelet port", e);
        }
    }

    /** The port to advertise in the Node's {@code daemonEndpoints}. */
    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Reads the first request line, then hands the connection to port-forward or to the log relay. */
    private final class Router extends ByteToMessageDecoder {
        private final PodPorts pods;

        Router(PodPorts pods) {
            this.pods = pods;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
            if (end < 0 && in.readableBytes() < MAX_REQUEST_LINE) {
                return; // the request line is not all here yet
            }
            String line = in.toString(
                    in.readerIndex(),
                    Math.min(end < 0 ? in.readableBytes() : end - in.readerIndex(), MAX_REQUEST_LINE),
                    StandardCharsets.US_ASCII);
            String[] parts = line.split(" ");
            if (parts.length >= 2 && parts[1].startsWith(PortForwardUpgrade.PREFIX)) {
                ctx.pipeline()
                        .addAfter(ctx.name(), "http", new HttpServerCodec())
                        .addAfter("http", "aggregator", new HttpObjectAggregator(64 * 1024))
                        .addAfter("aggregator", "upgrade", new PortForwardUpgrade(pods));
            } else {
                ctx.pipeline().addAfter(ctx.name(), "relay", new Relay(logPort));
            }
            ctx.pipeline().remove(this); // passes the bytes read so far on to the handler just added
        }
    }

    /** Copies a connection's bytes to and from the log endpoint, on this connection's event loop. */
    private static final class Relay extends ChannelInboundHandlerAdapter {
        private final int port;
        private final Queue<Object> pending = new ArrayDeque<>();
        private Channel upstream;

        Relay(int port) {
            this.port = port;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            Channel client = ctx.channel();
            client.config().setAutoRead(false);
            new Bootstrap()
                    .group(client.eventLoop())
                    .channel(NioSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext up, Object msg) {
                            client.writeAndFlush(msg);
                        }

                        @Override
                        public void channelInactive(ChannelHandlerContext up) {
                            client.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER)
                                    .addListener(ChannelFutureListener.CLOSE);
                        }
                    })
                    .connect(InetAddress.getLoopbackAddress(), port)
                    .addListener((ChannelFutureListener) f -> {
                        if (!f.isSuccess()) {
                            LOG.warn(
                                    "kubelet port: the log endpoint refused ({})",
                                    f.cause().toString());
                            client.close();
                            return;
                        }
                        if (!client.isActive()) { // the API server hung up meanwhile
                            f.channel().close();
                            return;
                        }
                        upstream = f.channel();
                        for (Object msg = pending.poll(); msg != null; msg = pending.poll()) {
                            upstream.write(msg);
                        }
                        upstream.flush();
                        client.config().setAutoRead(true);
                    });
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (upstream == null) {
                pending.add(msg);
            } else {
                upstream.writeAndFlush(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (upstream != null) {
                upstream.close();
            }
            pending.forEach(io.netty.util.ReferenceCountUtil::release);
            pending.clear();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("kubelet port: log relay failed: {}", cause.toString());
            ctx.close();
        }
    }

    /** A certificate of a CA made for this node (nobody verifies it: see the class comment). */
    private static SslContext tls() throws IOException {
        Instant now = Instant.now();
        KeyAndCertificate ca = CertificateIssuer.newCa("backstage-local-kubelet-ca", Duration.ofDays(365), now);
        KeyAndCertificate serving = CertificateIssuer.issueServing(
                ca, List.of(NodeAgent.HOST_IP, "localhost", NodeAgent.NODE_NAME), Duration.ofDays(365), now);
        return SslContextBuilder.forServer(serving.key(), serving.certificate(), ca.certificate())
                .build();
    }

    @Override
    public void close() {
        server.close();
        group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS);
    }
}
