package dev.backstage.e2e.node;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * One forwarded connection of a port-forward session ({@link PortForwardSession}): its request id, its two SPDY
 * streams (error and data), the container port asked for, and the connection to the pod once it is made. What the
 * client sends before that is held, then written in order; the client's end of the data stream shuts the pod
 * connection's output down once it is written. Used on the session's event loop only.
 */
final class PortForwardRequest {
    final String requestId;
    int port;
    int errorStream;
    int dataStream;
    boolean connecting;
    boolean ended;
    private Channel upstream;
    private boolean clientFinished;
    private final List<ByteBuf> pending = new ArrayList<>();

    PortForwardRequest(String requestId) {
        this.requestId = requestId;
    }

    /** Both streams are open and the pod connection is not being made yet. */
    boolean readyToConnect() {
        return errorStream != 0 && dataStream != 0 && !connecting;
    }

    /** Bytes from the client for the pod (this takes them over). */
    void fromClient(ByteBuf bytes) {
        if (upstream != null) {
            upstream.writeAndFlush(bytes);
        } else {
            pending.add(bytes);
        }
    }

    /** The client finished the data stream: nothing more will come for the pod. */
    void clientFinished() {
        clientFinished = true;
        if (upstream != null) {
            ((NioSocketChannel) upstream).shutdownOutput();
        }
    }

    /** The pod connection is made: what the client sent so far goes out first. */
    void connected(Channel channel) {
        upstream = channel;
        pending.forEach(upstream::write);
        pending.clear();
        upstream.flush();
        if (clientFinished) {
            ((NioSocketChannel) upstream).shutdownOutput();
        }
    }

    Channel upstream() {
        return upstream;
    }

    /** Drops what was held and closes the pod connection. */
    void close() {
        pending.forEach(ReferenceCountUtil::release);
        pending.clear();
        if (upstream != null) {
            upstream.close();
        }
    }
}
