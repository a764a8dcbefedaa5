package dev.backstage.e2e.node;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What kube-proxy does, in user space: each Service's ClusterIP (the control plane allocates them from a
 * loopback range) listens on its ports, and each connection is forwarded to a ready pod of the Service's
 * selector, at the local port its target port is mapped to. So the API server calls the admission webhook
 * through the Service and the CA bundle of the chart, as in a cluster.
 */
final class ServiceProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceProxy.class);

    /** service and port → the local ports of its ready endpoints, in the order to try them. */
    private final BiFunction<Service, ServicePort, List<Integer>> endpoints;

    private final Map<String, ServerSocket> listeners = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "service-proxy");
        t.setDaemon(true);
        return t;
    });

    ServiceProxy(BiFunction<Service, ServicePort, List<Integer>> endpoints) {
        this.endpoints = endpoints;
    }

    /** Listens for every loopback ClusterIP port of {@code services}, and stops listening for the others. */
    synchronized void sync(List<Service> services) {
        Set<String> wanted = new HashSet<>();
        for (Service service : services) {
            String ip = service.getSpec().getClusterIP();
            if (ip == null || !ip.startsWith("127.") || service.getSpec().getPorts() == null) {
                continue;
            }
            for (ServicePort port : service.getSpec().getPorts()) {
                if (port.getProtocol() != null && !"TCP".equals(port.getProtocol())) {
                    continue;
                }
                String key = ip + ":" + port.getPort();
                wanted.add(key);
                listeners.computeIfAbsent(key, k -> listen(service, port));
            }
        }
        for (String key : List.copyOf(listeners.keySet())) {
            if (!wanted.contains(key)) {
                close(listeners.remove(key));
            }
        }
    }

    private ServerSocket listen(Service service, ServicePort port) {
        String ip = service.getSpec().getClusterIP();
        String name = service.getMetadata().getNamespace() + "/"
                + service.getMetadata().getName();
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(ip), port.getPort()));
            threads.submit(() -> accept(server, service, port));
            LOG.info(
                    "service {} port {} on {}:{}",
                    name,
                    port.getName() == null ? port.getPort() : port.getName(),
                    ip,
                    port.getPort());
            return server;
        } catch (IOException e) {
            LOG.warn("service {}: cannot listen on {}:{} ({})", name, ip, port.getPort(), e.toString());
            return null;
        }
    }

    private void accept(ServerSocket server, Service service, ServicePort port) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Optional<Socket> upstream = connect(endpoints.apply(service, port));
                if (upstream.isEmpty()) {
                    client.close(); // no ready endpoint answers: connection refused, as with an empty Service
                    continue;
                }
                threads.submit(() -> pump(client, upstream.get()));
                threads.submit(() -> pump(upstream.get(), client));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.debug("service proxy accept failed: {}", e.toString());
                }
            }
        }
    }

    /**
     * A connection to the first endpoint that accepts one. An endpoint whose process just died (killed, not yet seen
     * by the node agent) refuses, and the next one is tried, as kube-proxy's user-space mode did: the caller never
     * sees a connection to a dead pod.
     */
    private static Optional<Socket> connect(List<Integer> ports) {
        for (int port : ports) {
            try {
                return Optional.of(new Socket(InetAddress.getLoopbackAddress(), port));
            } catch (IOException e) {
                LOG.debug("endpoint port {} refused ({}); trying the next", port, e.toString());
            }
        }
        return Optional.empty();
    }

    private static void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // either side closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private static void close(ServerSocket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public synchronized void close() {
        listeners.values().forEach(ServiceProxy::close);
        listeners.clear();
        threads.shutdownNow();
    }
}
