package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DeclaredObject.State;
import dev.backstage.runtime.spi.TopologyDeclarer;
import dev.backstage.runtime.spi.TopologyRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates the topics a topology names: per queue {@code {p}.{q}} with the queue's partitions and
 * replication factor, its dead-letter topic {@code {p}.{q}.dead-letter} (one partition, same replication
 * factor) when dead-lettering is on, and {@code {p}.topic.{t}} per topic (its own sizing where the topology gives one, else the provider's default
 * partitions and replication factor).
 *
 * <p>An existing topic with fewer partitions than asked is grown (Kafka cannot shrink one; a topic with
 * more is reported with a detail). Consumer groups are not declared: Kafka creates them when a member
 * joins, and an absent group is not drift; nor are a subscription group's retry and dead-letter topics (its
 * consumer creates them), but {@link #delete} removes them with their topic.
 */
final class KafkaDeclarer implements TopologyDeclarer {
    static final String KIND = "topic";

    private final KafkaClients clients;
    private final KafkaNames names;

    KafkaDeclarer(KafkaClients clients) {
        this.clients = clients;
        this.names = clients.settings().names();
    }

    private record Wanted(int partitions, short replicationFactor) {}

    private Map<String, Wanted> wanted(TopologyRequest request) {
        Map<String, Wanted> out = new LinkedHashMap<>();
        KafkaSettings s = clients.settings();
        for (TopologyRequest.QueueSpec q : request.queues()) {
            int partitions = q.partitions() > 0 ? q.partitions() : s.partitions();
            short rf = q.replicationFactor() > 0 ? q.replicationFactor() : s.replicationFactor();
            out.put(names.jobTopic(q.name()), new Wanted(partitions, rf));
            if (request.deadLetter()) {
                out.put(names.deadLetterTopic(q.name()), new Wanted(1, rf));
            }
        }
        for (String topic : request.topics()) {
            var sizing = request.sizingOf(topic);
            int partitions = sizing.filter(t -> t.partitions() > 0)
                    .map(t -> t.partitions())
                    .orElse(s.partitions());
            short rf = sizing.filter(t -> t.replicationFactor() > 0)
                    .map(t -> t.replicationFactor())
                    .orElse(s.replicationFactor());
            out.put(names.topicTopic(topic), new Wanted(partitions, rf));
        }
        return out;
    }

    @Override
    public List<DeclaredObject> declare(TopologyRequest request) {
        Map<String, Wanted> wanted = wanted(request);
        Map<String, TopicDescription> existing = describe(wanted.keySet());
        Map<String, NewTopic> create = new LinkedHashMap<>();
        wanted.forEach((topic, w) -> {
            if (!existing.containsKey(topic)) {
                create.put(topic, clients.newTopic(topic, w.partitions(), w.replicationFactor()));
            }
        });
        Map<String, KafkaFuture<Void>> created = create.isEmpty()
                ? Map.of()
                : clients.admin().createTopics(create.values()).values();
        List<DeclaredObject> out = new ArrayList<>();
        for (var e : wanted.entrySet()) {
            String topic = e.getKey();
            Wanted w = e.getValue();
            if (created.containsKey(topic)) {
                out.add(createdOrFailed(topic, w, created.get(topic)));
            } else {
                out.add(existed(topic, w, existing.get(topic)));
            }
        }
        return out;
    }

    private DeclaredObject createdOrFailed(String topic, Wanted w, KafkaFuture<Void> future) {
        try {
            future.get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            short minIsr = clients.settings().minInsyncReplicas();
            return new DeclaredObject(
                    KIND,
                    topic,
                    State.CREATED,
                    w.partitions() + " partitions, replication factor " + w.replicationFactor()
                            + (minIsr > 0 ? ", min.insync.replicas " + minIsr : ""));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return DeclaredObject.of(KIND, topic, State.EXISTED); // created concurrently by someone else
            }
            return new DeclaredObject(KIND, topic, State.FAILED, KafkaBrokerException.describe(e));
        } catch (TimeoutException e) {
            return new DeclaredObject(KIND, topic, State.FAILED, "timed out after " + KafkaClients.ADMIN_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new DeclaredObject(KIND, topic, State.FAILED, "interrupted");
        }
    }

    private DeclaredObject existed(String topic, Wanted w, TopicDescription d) {
        int have = d.partitions().size();
        int rf = d.partitions().isEmpty() ? 0 : d.partitions().get(0).replicas().size();
        List<String> details = new ArrayList<>();
        if (have < w.partitions()) {
            try {
                clients.admin()
                        .createPartitions(Map.of(topic, NewPartitions.increaseTo(w.partitions())))
                        .all()
                        .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                details.add("partitions increased from " + have + " to " + w.partitions());
            } catch (ExecutionException | TimeoutException e) {
                return new DeclaredObject(
                        KIND,
                        topic,
                        State.FAILED,
                        "could not increase partitions from " + have + " to " + w.partitions() + ": "
                                + KafkaBrokerException.describe(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new DeclaredObject(KIND, topic, State.FAILED, "interrupted");
            }
        } else if (have > w.partitions()) {
            details.add("has " + have + " partitions (asked for " + w.partitions() + "; Kafka cannot reduce them)");
        }
        if (rf != w.replicationFactor()) {
            details.add("replication factor is " + rf + " (asked for " + w.replicationFactor()
                    + "; change it with a partition reassignment)");
        }
        return new DeclaredObject(KIND, topic, State.EXISTED, details.isEmpty() ? null : String.join("; ", details));
    }

    @Override
    public List<DeclaredObject> inspect(TopologyRequest request) {
        Map<String, Wanted> wanted = wanted(request);
        Map<String, TopicDescription> existing = describe(wanted.keySet());
        List<DeclaredObject> out = new ArrayList<>();
        for (var e : wanted.entrySet()) {
            TopicDescription d = existing.get(e.getKey());
            out.add(
                    d == null
                            ? DeclaredObject.of(KIND, e.getKey(), State.MISSING)
                            : new DeclaredObject(
                                    KIND,
                                    e.getKey(),
                                    State.EXISTED,
                                    d.partitions().size() + " partitions"));
        }
        return out;
    }

    /**
     * Deletes the topology's topics and, with each pub/sub topic, the retry and dead-letter topics its
     * subscription groups created ({@code {p}.topic.{t}.{g}.retry}, {@code .dead-letter}; see {@code TopicRetries}).
     */
    @Override
    public List<DeclaredObject> delete(TopologyRequest request) {
        Map<String, Wanted> wanted = wanted(request);
        Set<String> existing = new LinkedHashSet<>(describe(wanted.keySet()).keySet());
        List<String> groupTopics = groupTopicsOf(request.topics());
        existing.addAll(groupTopics);
        Map<String, KafkaFuture<Void>> deleted = existing.isEmpty()
                ? Map.of()
                : clients.admin().deleteTopics(existing).topicNameValues();
        List<DeclaredObject> out = new ArrayList<>();
        Set<String> all = new LinkedHashSet<>(wanted.keySet());
        all.addAll(groupTopics);
        for (String topic : all) {
            clients.forget(topic);
            KafkaFuture<Void> f = deleted.get(topic);
            if (f == null) {
                out.add(DeclaredObject.of(KIND, topic, State.MISSING));
                continue;
            }
            try {
                f.get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                out.add(DeclaredObject.of(KIND, topic, State.DELETED));
            } catch (ExecutionException e) {
                out.add(
                        e.getCause() instanceof UnknownTopicOrPartitionException
                                ? DeclaredObject.of(KIND, topic, State.MISSING)
                                : new DeclaredObject(KIND, topic, State.FAILED, KafkaBrokerException.describe(e)));
            } catch (TimeoutException e) {
                out.add(new DeclaredObject(KIND, topic, State.FAILED, "timed out after " + KafkaClients.ADMIN_TIMEOUT));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.add(new DeclaredObject(KIND, topic, State.FAILED, "interrupted"));
            }
        }
        return out;
    }

    /** The subscription groups' retry and dead-letter topics of {@code topics} that exist. */
    private List<String> groupTopicsOf(List<String> topics) {
        if (topics.isEmpty()) {
            return List.of();
        }
        Set<String> listed;
        try {
            listed = clients.admin()
                    .listTopics()
                    .names()
                    .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaBrokerException("could not list topics", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while listing topics", e);
        }
        return listed.stream()
                .filter(t -> topics.stream().anyMatch(topic -> names.isGroupTopicOf(t, topic)))
                .sorted()
                .toList();
    }

    /** Descriptions of the topics that exist; throws when the broker cannot be asked at all. */
    private Map<String, TopicDescription> describe(Set<String> topics) {
        Map<String, TopicDescription> out = new LinkedHashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        Map<String, KafkaFuture<TopicDescription>> futures =
                clients.admin().describeTopics(topics).topicNameValues();
        for (var e : futures.entrySet()) {
            try {
                out.put(e.getKey(), e.getValue().get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new KafkaBrokerException("could not describe topic " + e.getKey(), ex);
                }
                // Absent: the caller creates it or reports it missing.
            } catch (TimeoutException ex) {
                throw new KafkaBrokerException("describing topic " + e.getKey() + " timed out", ex);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new KafkaBrokerException("interrupted while describing topic " + e.getKey(), ex);
            }
        }
        return out;
    }
}
