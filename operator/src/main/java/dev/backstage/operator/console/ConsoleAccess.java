package dev.backstage.operator.console;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Optional;

/**
 * Who a token belongs to (TokenReview) and what they may do (SubjectAccessReview), asked of the API server with the
 * operator's own credentials (the chart grants it {@code create} on both). The API server decides; the console never
 * guesses. A failed API call is a refusal.
 */
public final class ConsoleAccess {
    /** The custom resources' API group. */
    public static final String GROUP = "backstage.dev";

    public static final String POOLS = "backstageworkerpools";
    public static final String TOPOLOGIES = "backstagetopologies";

    private final KubernetesClient client;

    public ConsoleAccess(KubernetesClient client) {
        this.client = client;
    }

    /** The user a token was issued to; empty when the API server does not authenticate it. */
    public record User(String name, List<String> groups) {}

    public Optional<User> authenticate(String token) {
        if (token == null || token.isBlank()) {
            return Optional.empty();
        }
        TokenReview review = client.authentication()
                .v1()
                .tokenReviews()
                .create(new TokenReviewBuilder()
                        .withNewSpec()
                        .withToken(token.trim())
                        .endSpec()
                        .build());
        if (review.getStatus() == null
                || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())
                || review.getStatus().getUser() == null) {
            return Optional.empty();
        }
        var user = review.getStatus().getUser();
        return Optional.of(
                new User(user.getUsername(), user.getGroups() == null ? List.of() : List.copyOf(user.getGroups())));
    }

    /**
     * Whether {@code session}'s user may {@code verb} the {@code resource} (plural) named {@code name} in
     * {@code namespace}; a null name asks for every object of that resource in the namespace.
     */
    public boolean allowed(Session session, Verb verb, String resource, String namespace, String name) {
        return allowed(session, verb, GROUP, resource, namespace, name);
    }

    /** As above, for a resource of API group {@code group} ("" = core, e.g. events). */
    public boolean allowed(Session session, Verb verb, String group, String resource, String namespace, String name) {
        SubjectAccessReview review = client.authorization()
                .v1()
                .subjectAccessReview()
                .create(new SubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withUser(session.user())
                        .withGroups(session.groups())
                        .withNewResourceAttributes()
                        .withGroup(group)
                        .withResource(resource)
                        .withVerb(verb.rbac())
                        .withNamespace(namespace)
                        .withName(name)
                        .endResourceAttributes()
                        .endSpec()
                        .build());
        return review.getStatus() != null
                && Boolean.TRUE.equals(review.getStatus().getAllowed());
    }
}
