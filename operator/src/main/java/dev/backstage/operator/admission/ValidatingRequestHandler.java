package dev.backstage.operator.admission;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.javaoperatorsdk.webhook.admission.AdmissionRequestHandler;
import io.javaoperatorsdk.webhook.admission.Operation;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Objects;

/**
 * Plugs an {@link AdmissionCheck} into the webhook framework's {@code AdmissionController}: checks that the request
 * is for the expected kind and carries a readable object, runs the check on CREATE and UPDATE (a DELETE passes, with
 * the warnings of its deletion check when it has one; CONNECT passes), and turns the verdict into a response with
 * the denial message and the warnings.
 */
public final class ValidatingRequestHandler<T extends KubernetesResource> implements AdmissionRequestHandler {
    private final Class<T> type;
    private final String kind;
    private final AdmissionCheck<T> check;
    /** What a DELETE of this kind says (warnings only); null lets every DELETE pass without a word. */
    private final java.util.function.BiFunction<T, String, Verdict> deletion;

    public ValidatingRequestHandler(Class<T> type, String kind, AdmissionCheck<T> check) {
        this(type, kind, check, null);
    }

    /** @param deletion checks a DELETE's stored object (request.oldObject) and namespace */
    public ValidatingRequestHandler(
            Class<T> type,
            String kind,
            AdmissionCheck<T> check,
            java.util.function.BiFunction<T, String, Verdict> deletion) {
        this.deletion = deletion;
        this.type = Objects.requireNonNull(type, "type");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.check = Objects.requireNonNull(check, "check");
    }

    public String kind() {
        return kind;
    }

    @Override
    public AdmissionResponse handle(AdmissionRequest request) {
        Operation operation;
        try {
            operation = Operation.valueOf(String.valueOf(request.getOperation()));
        } catch (IllegalArgumentException e) {
            return denied(List.of("request.operation '" + request.getOperation()
                    + "' is not one of CREATE, UPDATE, DELETE, CONNECT"));
        }
        if (operation == Operation.DELETE && deletion != null && type.isInstance(request.getOldObject())) {
            // Never refused (see the check): a DELETE only gets its warnings.
            return allowed(deletion.apply(type.cast(request.getOldObject()), request.getNamespace())
                    .warnings());
        }
        if (operation == Operation.DELETE || operation == Operation.CONNECT) {
            return allowed(List.of());
        }
        String requestKind =
                request.getKind() == null ? null : request.getKind().getKind();
        if (!kind.equals(requestKind)) {
            return denied(List.of("this endpoint validates " + kind + ", but the request is for " + requestKind
                    + ": point the webhook rule for that kind at its own path"));
        }
        if (!type.isInstance(request.getObject())) {
            return denied(List.of("request.object is not a readable " + kind));
        }
        T oldObject = null;
        if (operation == Operation.UPDATE) {
            if (!type.isInstance(request.getOldObject())) {
                return denied(List.of("request.oldObject of an UPDATE is not a readable " + kind));
            }
            oldObject = type.cast(request.getOldObject());
        }
        Verdict verdict = check.check(type.cast(request.getObject()), oldObject, operation, request.getNamespace());
        return verdict.allowed() ? allowed(verdict.warnings()) : denied(verdict.denials(), verdict.warnings());
    }

    static AdmissionResponse allowed(List<String> warnings) {
        AdmissionResponse response = new AdmissionResponse();
        response.setAllowed(true);
        if (!warnings.isEmpty()) {
            response.setWarnings(warnings);
        }
        return response;
    }

    static AdmissionResponse denied(List<String> reasons) {
        return denied(reasons, List.of());
    }

    static AdmissionResponse denied(List<String> reasons, List<String> warnings) {
        AdmissionResponse response = new AdmissionResponse();
        response.setAllowed(false);
        // kubectl prints the message after "admission webhook ... denied the request: ".
        response.setStatus(new StatusBuilder()
                .withStatus("Failure")
                .withCode(HttpURLConnection.HTTP_FORBIDDEN)
                .withReason("Forbidden")
                .withMessage(String.join("; ", reasons))
                .build());
        if (!warnings.isEmpty()) {
            response.setWarnings(warnings);
        }
        return response;
    }
}
