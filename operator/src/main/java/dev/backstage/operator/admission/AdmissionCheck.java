package dev.backstage.operator.admission;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.javaoperatorsdk.webhook.admission.Operation;

/**
 * Validates one kind on CREATE and UPDATE. Unlike the webhook framework's {@code Validator}, it returns warnings
 * along with denials, so a user hears about risky-but-legal settings at apply time.
 */
@FunctionalInterface
public interface AdmissionCheck<T extends KubernetesResource> {
    /**
     * @param object    the object as it would be stored
     * @param oldObject the stored object on UPDATE, else null
     * @param namespace the request's namespace (an object's own metadata may leave it empty on CREATE)
     */
    Verdict check(T object, T oldObject, Operation operation, String namespace);
}
