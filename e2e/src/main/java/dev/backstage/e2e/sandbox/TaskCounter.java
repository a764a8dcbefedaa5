package dev.backstage.e2e.sandbox;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;

/**
 * Counts the entries of one task name on a stream, incrementally (it remembers where it stopped). The
 * sandbox counts chained {@code sendReceipt} jobs this way: one per processed order.
 */
final class TaskCounter implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String stream;
    private final String taskName;
    private String after = "-";
    private long count;

    TaskCounter(String redisUrl, String stream, String taskName) {
        this.client = RedisClient.create(redisUrl);
        this.connection = client.connect();
        this.stream = stream;
        this.taskName = taskName;
    }

    long count() {
        while (true) {
            List<StreamMessage<String, String>> page =
                    connection.sync().xrange(stream, Range.create(after, "+"), Limit.from(1000));
            for (StreamMessage<String, String> m : page) {
                if (taskName.equals(m.getBody().get("taskName"))) {
                    count++;
                }
            }
            if (page.isEmpty()) {
                return count;
            }
            after = "(" + page.get(page.size() - 1).getId();
            if (page.size() < 1000) {
                return count;
            }
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
