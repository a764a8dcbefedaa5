package dev.backstage.runtime.rabbitmq;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code rabbitmqctl}, run as a child process (it needs the broker's Erlang cookie, so the tests run as
 * the user that owns it, root here): the reference for queue depths. It asks the queue processes themselves, so its
 * figures are exact at once, unlike the management API's, which the broker refreshes every few seconds.
 */
final class RabbitMqCtl {
    private final String executable;
    private final String node;

    /** The single node's {@code rabbitmqctl}. */
    RabbitMqCtl() {
        this("rabbitmqctl", null);
    }

    /** @param executable e.g. the cluster's {@code ctl} script (with its cookie); @param node the node to ask */
    RabbitMqCtl(String executable, String node) {
        this.executable = executable;
        this.node = node;
    }

    /** The lines {@code eval expression} prints. */
    List<String> eval(String expression) {
        return run("-q", "eval", expression);
    }
    /** One row of {@code list_queues name messages_ready messages_unacknowledged}. */
    record QueueRow(long ready, long unacknowledged) {}

    /** The rows whose queue name starts with {@code prefix}, by name. */
    Map<String, QueueRow> listQueues(String prefix) {
        Map<String, QueueRow> rows = new HashMap<>();
        for (String line :
                run("-q", "list_queues", "--no-table-headers", "name", "messages_ready", "messages_unacknowledged")) {
            String[] cols = line.split("\t");
            if (cols.length == 3 && cols[0].startsWith(prefix)) {
                rows.put(cols[0], new QueueRow(Long.parseLong(cols[1].trim()), Long.parseLong(cols[2].trim())));
            }
        }
        return rows;
    }

    /** One row of {@code list_queues name messages_ready messages_unacknowledged exclusive auto_delete durable}. */
    record QueueFlags(long ready, long unacknowledged, boolean exclusive, boolean autoDelete, boolean durable) {}

    /** The rows whose queue name starts with {@code prefix}, by name, with the queue's declaration flags. */
    Map<String, QueueFlags> listQueueFlags(String prefix) {
        Map<String, QueueFlags> rows = new HashMap<>();
        for (String line : run(
                "-q",
                "list_queues",
                "--no-table-headers",
                "name",
                "messages_ready",
                "messages_unacknowledged",
                "exclusive",
                "auto_delete",
                "durable")) {
            String[] c = line.split("\t");
            if (c.length == 6 && c[0].startsWith(prefix)) {
                rows.put(
                        c[0],
                        new QueueFlags(
                                Long.parseLong(c[1].trim()),
                                Long.parseLong(c[2].trim()),
                                Boolean.parseBoolean(c[3].trim()),
                                Boolean.parseBoolean(c[4].trim()),
                                Boolean.parseBoolean(c[5].trim())));
            }
        }
        return rows;
    }

    /** The destinations bound to exchange {@code source}, from {@code list_bindings}. */
    List<String> boundTo(String source) {
        return run("-q", "list_bindings", "--no-table-headers", "source_name", "destination_name").stream()
                .map(line -> line.split("\t"))
                .filter(c -> c.length == 2 && c[0].equals(source))
                .map(c -> c[1])
                .sorted()
                .toList();
    }

    private List<String> run(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of(executable));
        if (node != null) {
            command.addAll(List.of("-n", node));
        }
        command.addAll(List.of(args));
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("rabbitmqctl " + String.join(" ", args) + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError(
                        "rabbitmqctl " + String.join(" ", args) + " exited " + process.exitValue() + ": " + out);
            }
            return out.lines().toList();
        } catch (IOException e) {
            throw new AssertionError("could not run rabbitmqctl (is it on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
