package dev.backstage.operator.console;

import dev.backstage.operator.broker.BrokerConnectionException;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The console's pages and actions for a signed-in user. Every read checks {@code get} and every action
 * {@code update} on the custom resource with {@link Permissions} (SubjectAccessReview) before anything is read or
 * done; an action ends with a redirect to its page, which shows the outcome once.
 */
public final class ConsoleRoutes {
    private final ConsoleCache cache;
    private final Permissions permissions;
    private final ConsoleActions actions;
    private final Clock clock;
    private final long historySeconds;
    private final Map<String, String> notices = new ConcurrentHashMap<>();

    public ConsoleRoutes(
            ConsoleCache cache, ConsoleAccess access, ConsoleActions actions, Clock clock, long historySeconds) {
        this.cache = cache;
        this.permissions = new Permissions(access, clock, java.time.Duration.ofSeconds(30));
        this.actions = actions;
        this.clock = clock;
        this.historySeconds = historySeconds;
    }

    /** A page (status and HTML) or a redirect. */
    public record Response(int status, String html, String location) {
        static Response page(String html) {
            return new Response(200, html, null);
        }

        static Response redirect(String location) {
            return new Response(303, null, location);
        }

        static Response error(int status, String message) {
            return new Response(
                    status,
                    Layout.page("Error", null, null, message, "<p><a href=\"/\">Back to the overview</a></p>"),
                    null);
        }
    }

    Response route(Session session, ConsoleRequest request) {
        List<String> p = request.path;
        boolean get = "GET".equals(request.method);
        if (get && p.isEmpty()) {
            return overview(session, request.query.get("namespace"));
        }
        if (get && p.size() == 1 && "schedules".equals(p.get(0))) {
            return schedules(session, request.query.get("namespace"));
        }
        if (p.size() >= 3 && "pools".equals(p.get(0))) {
            String ns = p.get(1);
            String name = p.get(2);
            Verb verb = get ? Verb.GET : Verb.UPDATE;
            if (!permissions.may(session, verb, ConsoleAccess.POOLS, ns, name)) {
                return refused(session, verb, ConsoleAccess.POOLS, ns, name);
            }
            BackstageWorkerPool pool = cache.pool(ns, name).orElse(null);
            if (pool == null) {
                return Response.error(
                        404, "no pool " + ns + "/" + name + " (deleted, or not watched by this operator)");
            }
            if (get && p.size() == 3) {
                return Response.page(Layout.page(
                        name,
                        session.user(),
                        session.csrf(),
                        notices.remove(session.id()),
                        PoolPage.body(
                                pool,
                                cache.history(ns, name),
                                historySeconds,
                                permissions.mayListEvents(session, ns) ? actions.recentEvents(pool, 10) : null)));
            }
            if (get && p.size() == 4 && "dead-letters".equals(p.get(3))) {
                return deadLetters(session, request, pool, null);
            }
            // Actions are POSTs only (with the CSRF token the server checked): never a link or a GET.
            if (!get && p.size() == 5 && "dead-letters".equals(p.get(3))) {
                return deadLetters(session, request, pool, p.get(4));
            }
        }
        if (!get && p.size() == 4 && "schedules".equals(p.get(0))) {
            return suspend(session, request, p.get(1), p.get(2), p.get(3));
        }
        return Response.error(404, "no such page: " + String.join("/", p));
    }

    private Response overview(Session session, String namespace) {
        List<BackstageWorkerPool> pools = cache.pools().stream()
                .filter(pool -> permissions.may(
                        session,
                        Verb.GET,
                        ConsoleAccess.POOLS,
                        pool.getMetadata().getNamespace(),
                        pool.getMetadata().getName()))
                .collect(Collectors.toList());
        List<BackstageTopology> topologies = readableTopologies(session);
        Set<String> namespaces = new TreeSet<>();
        pools.forEach(pool -> namespaces.add(pool.getMetadata().getNamespace()));
        topologies.forEach(t -> namespaces.add(t.getMetadata().getNamespace()));
        boolean filtered = namespace != null && !namespace.isBlank();
        if (filtered) {
            pools.removeIf(pool -> !namespace.equals(pool.getMetadata().getNamespace()));
            topologies.removeIf(t -> !namespace.equals(t.getMetadata().getNamespace()));
        }
        return Response.page(Layout.page(
                "Overview",
                session.user(),
                session.csrf(),
                notices.remove(session.id()),
                OverviewPage.body(pools, topologies, namespaces, filtered ? namespace : null)));
    }

    private Response schedules(Session session, String namespace) {
        List<BackstageTopology> topologies = readableTopologies(session);
        if (namespace != null && !namespace.isBlank()) {
            topologies.removeIf(t -> !namespace.equals(t.getMetadata().getNamespace()));
        }
        return Response.page(Layout.page(
                "Schedules",
                session.user(),
                session.csrf(),
                notices.remove(session.id()),
                SchedulePage.body(topologies, clock.instant(), session.csrf())));
    }

    private List<BackstageTopology> readableTopologies(Session session) {
        return cache.topologies().stream()
                .filter(t -> permissions.may(
                        session,
                        Verb.GET,
                        ConsoleAccess.TOPOLOGIES,
                        t.getMetadata().getNamespace(),
                        t.getMetadata().getName()))
                .collect(Collectors.toList());
    }

    private Response deadLetters(Session session, ConsoleRequest request, BackstageWorkerPool pool, String action) {
        String ns = pool.getMetadata().getNamespace();
        String name = pool.getMetadata().getName();
        Map<String, String> fields = action == null ? request.query : request.form;
        String queue = request.required(fields, "queue");
        if (pool.getSpec() == null
                || pool.getSpec().getQueues() == null
                || !pool.getSpec().getQueues().contains(queue)) {
            throw new ConsoleRequest.BadRequest(
                    "pool " + ns + "/" + name + " has no queue '" + queue + "'; pick one of its spec.queues");
        }
        String topologyName = pool.getSpec().getTopologyRef() == null
                ? null
                : pool.getSpec().getTopologyRef().getName();
        BackstageTopology topology =
                topologyName == null ? null : cache.topology(ns, topologyName).orElse(null);
        if (topology == null) {
            return Response.error(
                    409, "pool " + ns + "/" + name + " has no topology the console can see (" + topologyName + ")");
        }
        String page = "/pools/" + Html.url(ns) + "/" + Html.url(name) + "/dead-letters?queue=" + Html.url(queue);
        try {
            if (action == null) {
                ConsoleActions.DeadLetters letters =
                        actions.page(topology, queue, request.query.get("after"), DeadLetterPage.PAGE_SIZE + 1);
                return Response.page(Layout.page(
                        "Dead letters",
                        session.user(),
                        session.csrf(),
                        notices.remove(session.id()),
                        DeadLetterPage.body(
                                ns,
                                name,
                                queue,
                                letters.entries(),
                                request.query.get("after"),
                                letters.total(),
                                letters.oneByOne(),
                                session.csrf())));
            }
            String notice = switch (action) {
                case "redrive" ->
                    actions.redriveOne(session, pool, topology, queue, request.required(request.form, "id"))
                            ? "Redrove " + request.form.get("id") + "."
                            : "No dead letter " + request.form.get("id") + ".";
                case "redrive-all" ->
                    "Redrove " + actions.redriveAll(session, pool, topology, queue) + " dead letter(s).";
                case "delete" ->
                    actions.delete(session, pool, topology, queue, request.required(request.form, "id"))
                            ? "Deleted " + request.form.get("id") + "."
                            : "No dead letter " + request.form.get("id") + ".";
                default ->
                    throw new ConsoleRequest.BadRequest(
                            "no dead-letter action '" + action + "'; use redrive, redrive-all or delete");
            };
            notices.put(session.id(), notice);
            return Response.redirect(page);
        } catch (BrokerConnectionException e) {
            return Response.error(
                    503,
                    "the broker of topology " + ns + "/" + topologyName + " cannot be reached (" + e.reason()
                            + "); see the topology's conditions");
        } catch (UnsupportedOperationException e) {
            return Response.error(409, e.getMessage());
        } catch (IllegalArgumentException e) {
            return Response.error(400, e.getMessage()); // e.g. a page link with an id this broker does not know
        }
    }

    private Response suspend(Session session, ConsoleRequest request, String ns, String name, String action) {
        if (!"suspend".equals(action) && !"resume".equals(action)) {
            throw new ConsoleRequest.BadRequest("no schedule action '" + action + "'; use suspend or resume");
        }
        if (!permissions.may(session, Verb.UPDATE, ConsoleAccess.TOPOLOGIES, ns, name)) {
            return refused(session, Verb.UPDATE, ConsoleAccess.TOPOLOGIES, ns, name);
        }
        BackstageTopology topology = cache.topology(ns, name).orElse(null);
        String schedule = request.required(request.form, "schedule");
        if (topology == null || !actions.suspend(session, topology, schedule, "suspend".equals(action))) {
            return Response.error(404, "no schedule '" + schedule + "' in topology " + ns + "/" + name);
        }
        notices.put(session.id(), ("suspend".equals(action) ? "Suspended " : "Resumed ") + schedule + ".");
        return Response.redirect("/schedules?namespace=" + Html.url(ns));
    }

    private static Response refused(Session session, Verb verb, String resource, String ns, String name) {
        return Response.error(
                403,
                session.user() + " may not " + verb.rbac() + " " + resource + " " + ns + "/" + name + ": ask for RBAC '"
                        + verb.rbac() + "' on " + resource + "." + ConsoleAccess.GROUP + " in " + ns);
    }
}
