package dev.backstage.operator.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP forwarder in front of a real broker, so a test can take "the broker" away and bring it back
 * without stopping the shared broker other tests use. {@link #stop()} closes the listening socket and every
 * forwarded connection (clients see a reset, then connection refused); {@link #start()} listens again on the
 * same port.
 */
public final class TcpProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);

    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private int port;

    public TcpProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
    }

    /** Listens (on a free port the first time, the same port after a {@link #stop()}). */
    public synchronized TcpProxy start() throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        port = socket.getLocalPort();
        server = socket;
        Thread accept = new Thread(() -> acceptLoop(socket), "tcp-proxy-accept-" + port);
        accept.setDaemon(true);
        accept.start();
        return this;
    }

    public int port() {
        return port;
    }

    /** Refuses new connections and cuts the open ones. */
    public synchronized void stop() {
        closeQuietly(server);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        stop();
    }

    private void acceptLoop(ServerSocket socket) {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, "up");
                pump(upstream, client, "down");
            } catch (IOException e) {
                if (!socket.isClosed()) {
                    LOG.warn("tcp proxy on port {}: accept failed: {}", port, e.toString());
                }
            }
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // The other side closed, or stop() cut the connection: either ends this forwarder.
                        LOG.debug("tcp proxy on port {}: {} stream ended: {}", port, direction, e.toString());
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-" + port + "-" + direction);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.debug("tcp proxy: close failed: {}", e.toString());
        }
    }
}
