package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DeclaredObject.State;
import dev.backstage.runtime.spi.TopologyDeclarer;
import dev.backstage.runtime.spi.TopologyRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The broker side of a topology on RabbitMQ: per queue the durable work queue and (with dead-lettering) its
 * dead-letter queue; the topics exchange when topics are named (subscriber queues are created by the
 * subscribers); and the delay path: the delayed-message exchange and its bindings, or the TTL ladder
 * (reported as one {@code delay-ladder} object). Queues are of the provider's {@link QueueType}, with the
 * arguments of {@link QueueArguments}; existing queues are accepted whatever their type and arguments (a queue's
 * type cannot change in place).
 *
 * <p>{@link #delete} removes the named queues (with their messages), the topics exchange and the delay
 * objects of this prefix: the ladder is shared by every queue under the prefix, so delete a topology only
 * when it owns the prefix.
 */
final class RabbitMqDeclarer implements TopologyDeclarer {
    private final RabbitMqNames names;
    private final BrokerAdmin admin;
    private final Optional<RabbitMqDelays> delays;
    private final QueueArguments arguments;

    RabbitMqDeclarer(
            RabbitMqNames names, BrokerAdmin admin, Optional<RabbitMqDelays> delays, QueueArguments arguments) {
        this.names = names;
        this.admin = admin;
        this.delays = delays;
        this.arguments = arguments;
    }

    @Override
    public List<DeclaredObject> declare(TopologyRequest request) {
        List<DeclaredObject> result = new ArrayList<>();
        for (String queue : queues(request)) {
            // The dead-letter queue first: a quorum work queue names it as its delivery limit's target.
            String deadLetters = names.deadLetterQueue(queue);
            DeclaredObject deadLetterQueue =
                    request.deadLetter() ? declareQueue(deadLetters, arguments.deadLetterQueue()) : null;
            result.add(declareQueue(names.workQueue(queue), arguments.workQueue(deadLetters)));
            if (deadLetterQueue != null) {
                result.add(deadLetterQueue);
            }
        }
        if (!request.topics().isEmpty()) {
            boolean created = admin.ensureExchange(names.topicsExchange(), "topic", null);
            result.add(DeclaredObject.of("exchange", names.topicsExchange(), created ? State.CREATED : State.EXISTED));
        }
        delays.ifPresent(d -> result.addAll(d.declare(queues(request))));
        return result;
    }

    private DeclaredObject declareQueue(String name, java.util.Map<String, Object> queueArguments) {
        try {
            return DeclaredObject.of(
                    "queue", name, admin.ensureQueue(name, queueArguments) ? State.CREATED : State.EXISTED);
        } catch (BrokerAdmin.BrokerCallException e) {
            return new DeclaredObject("queue", name, State.FAILED, e.getMessage());
        }
    }

    @Override
    public List<DeclaredObject> inspect(TopologyRequest request) {
        List<DeclaredObject> result = new ArrayList<>();
        for (String queueName : queueNames(request)) {
            result.add(DeclaredObject.of(
                    "queue", queueName, admin.queueExists(queueName) ? State.EXISTED : State.MISSING));
        }
        if (!request.topics().isEmpty()) {
            result.add(DeclaredObject.of(
                    "exchange",
                    names.topicsExchange(),
                    admin.exchangeExists(names.topicsExchange()) ? State.EXISTED : State.MISSING));
        }
        delays.ifPresent(d -> result.addAll(d.inspect(queues(request))));
        return result;
    }

    @Override
    public List<DeclaredObject> delete(TopologyRequest request) {
        List<DeclaredObject> result = new ArrayList<>();
        for (String queueName : queueNames(request)) {
            if (admin.queueExists(queueName)) {
                admin.call("delete queue " + queueName, ch -> ch.queueDelete(queueName));
                result.add(DeclaredObject.of("queue", queueName, State.DELETED));
            } else {
                result.add(DeclaredObject.of("queue", queueName, State.MISSING));
            }
        }
        if (!request.topics().isEmpty() && admin.exchangeExists(names.topicsExchange())) {
            admin.call("delete exchange " + names.topicsExchange(), ch -> ch.exchangeDelete(names.topicsExchange()));
            result.add(DeclaredObject.of("exchange", names.topicsExchange(), State.DELETED));
        }
        delays.ifPresent(d -> result.addAll(d.delete()));
        return result;
    }

    private static List<String> queues(TopologyRequest request) {
        return request.queues().stream().map(TopologyRequest.QueueSpec::name).toList();
    }

    private List<String> queueNames(TopologyRequest request) {
        List<String> result = new ArrayList<>();
        for (String queue : queues(request)) {
            result.add(names.workQueue(queue));
            if (request.deadLetter()) {
                result.add(names.deadLetterQueue(queue));
            }
        }
        return result;
    }
}
