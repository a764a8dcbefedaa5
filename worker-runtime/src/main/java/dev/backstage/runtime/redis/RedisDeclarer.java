package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DeclaredObject.State;
import dev.backstage.runtime.spi.TopologyDeclarer;
import dev.backstage.runtime.spi.TopologyRequest;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Declares streams, consumer groups, dead-letter streams and topic streams. An empty stream is made
 * with {@code XADD … MAXLEN 0}, which creates the key and trims the marker entry in the same command,
 * so no reader ever sees it. {@link #delete} also removes the topics' dead-letter streams that subscription
 * groups made.
 */
final class RedisDeclarer implements TopologyDeclarer {
    private final RedisProvider provider;

    RedisDeclarer(RedisProvider provider) {
        this.provider = provider;
    }

    @Override
    public List<DeclaredObject> declare(TopologyRequest request) {
        List<DeclaredObject> out = new ArrayList<>();
        for (TopologyRequest.QueueSpec queue : request.queues()) {
            String stream = provider.keys().stream(queue.name());
            boolean streamExisted = exists(stream);
            out.add(DeclaredObject.of("stream", stream, streamExisted ? State.EXISTED : State.CREATED));
            out.add(DeclaredObject.of(
                    "consumer-group",
                    stream + " " + request.consumerGroup(),
                    createGroup(stream, request.consumerGroup()) ? State.CREATED : State.EXISTED));
            if (request.deadLetter()) {
                out.add(ensureStream("dead-letter-stream", provider.keys().deadLetter(queue.name())));
            }
        }
        for (String topic : request.topics()) {
            out.add(ensureStream("topic-stream", provider.keys().topic(topic)));
        }
        return out;
    }

    @Override
    public List<DeclaredObject> inspect(TopologyRequest request) {
        List<DeclaredObject> out = new ArrayList<>();
        for (TopologyRequest.QueueSpec queue : request.queues()) {
            String stream = provider.keys().stream(queue.name());
            boolean exists = exists(stream);
            out.add(DeclaredObject.of("stream", stream, exists ? State.EXISTED : State.MISSING));
            out.add(DeclaredObject.of(
                    "consumer-group",
                    stream + " " + request.consumerGroup(),
                    exists && groupExists(stream, request.consumerGroup()) ? State.EXISTED : State.MISSING));
            if (request.deadLetter()) {
                String dlq = provider.keys().deadLetter(queue.name());
                out.add(DeclaredObject.of("dead-letter-stream", dlq, exists(dlq) ? State.EXISTED : State.MISSING));
            }
        }
        for (String topic : request.topics()) {
            String stream = provider.keys().topic(topic);
            out.add(DeclaredObject.of("topic-stream", stream, exists(stream) ? State.EXISTED : State.MISSING));
        }
        return out;
    }

    @Override
    public List<DeclaredObject> delete(TopologyRequest request) {
        List<DeclaredObject> out = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (TopologyRequest.QueueSpec queue : request.queues()) {
            keys.add(provider.keys().stream(queue.name()));
            keys.add(provider.keys().deadLetter(queue.name()));
        }
        for (String topic : request.topics()) {
            keys.add(provider.keys().topic(topic));
            keys.addAll(topicDeadLetters(topic));
        }
        for (String key : keys) {
            Long removed = provider.sync().del(key);
            out.add(DeclaredObject.of("stream", key, removed != null && removed > 0 ? State.DELETED : State.MISSING));
        }
        return out;
    }

    /**
     * The dead-letter streams the topic's subscription groups made ({@link RedisKeys#topicDeadLetter}): the
     * subscribers create them, so they are found by name, {@code SCAN MATCH {p}:topic:{t}:*:dead-letter}, keeping
     * only {@code sub:}/{@code grp:} groups (a topic whose name extends this one's with ':' is not touched).
     */
    private List<String> topicDeadLetters(String topic) {
        String head = provider.keys().topic(topic) + ":";
        String tail = ":dead-letter";
        ScanArgs match = ScanArgs.Builder.matches(head.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*" + tail)
                .limit(1000);
        List<String> out = new ArrayList<>();
        KeyScanCursor<String> scan = provider.sync().scan(match);
        while (true) {
            for (String key : scan.getKeys()) {
                String group = key.substring(head.length(), key.length() - tail.length());
                if (group.matches("(sub|grp):[^:]+")) {
                    out.add(key);
                }
            }
            if (scan.isFinished()) {
                return out;
            }
            scan = provider.sync().scan(scan, match);
        }
    }

    private boolean exists(String key) {
        Long n = provider.sync().exists(key);
        return n != null && n > 0;
    }

    private boolean createGroup(String stream, String group) {
        try {
            provider.sync().xgroupCreate(StreamOffset.from(stream, "0"), group, XGroupCreateArgs.Builder.mkstream());
            return true;
        } catch (RedisCommandExecutionException e) {
            if (String.valueOf(e.getMessage()).startsWith("BUSYGROUP")) {
                return false;
            }
            throw e;
        }
    }

    private boolean groupExists(String stream, String group) {
        return StreamInfo.groups(provider.sync().xinfoGroups(stream)).stream()
                .anyMatch(g -> group.equals(g.get("name")));
    }

    private DeclaredObject ensureStream(String kind, String key) {
        if (exists(key)) {
            return DeclaredObject.of(kind, key, State.EXISTED);
        }
        // XADD … MAXLEN 0 creates the key and trims the marker in one command (lettuce rejects maxlen 0 itself).
        provider.sync()
                .eval(
                        "return redis.call('XADD', KEYS[1], 'MAXLEN', '0', '*', 'declared', '1')",
                        io.lettuce.core.ScriptOutputType.VALUE,
                        key);
        return DeclaredObject.of(kind, key, State.CREATED);
    }
}
