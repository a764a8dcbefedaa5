package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * Pod-template settings a user expects to control. The operator keeps the rest (container command, probes,
 * security context, config volume) because the runtime contract depends on them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodOverrides {
    @JsonPropertyDescription("Extra pod labels (the operator's own labels win on conflict).")
    private Map<String, String> labels;

    @JsonPropertyDescription("Extra pod annotations (e.g. for a service mesh or log shipper).")
    private Map<String, String> annotations;

    @JsonPropertyDescription("Node labels the pods must match.")
    private Map<String, String> nodeSelector;

    @JsonPropertyDescription("Pod tolerations.")
    private List<Toleration> tolerations;

    @JsonPropertyDescription("Pod affinity and anti-affinity.")
    private Affinity affinity;

    @JsonPropertyDescription("Service account the workers run as.")
    private String serviceAccountName;

    @JsonPropertyDescription("Secrets for pulling the worker image.")
    private List<LocalObjectReference> imagePullSecrets;

    @JsonPropertyDescription("Pod priority class.")
    private String priorityClassName;

    public Map<String, String> getLabels() {
        return labels;
    }

    public void setLabels(Map<String, String> labels) {
        this.labels = labels;
    }

    public Map<String, String> getAnnotations() {
        return annotations;
    }

    public void setAnnotations(Map<String, String> annotations) {
        this.annotations = annotations;
    }

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public List<Toleration> getTolerations() {
        return tolerations;
    }

    public void setTolerations(List<Toleration> tolerations) {
        this.tolerations = tolerations;
    }

    public Affinity getAffinity() {
        return affinity;
    }

    public void setAffinity(Affinity affinity) {
        this.affinity = affinity;
    }

    public String getServiceAccountName() {
        return serviceAccountName;
    }

    public void setServiceAccountName(String serviceAccountName) {
        this.serviceAccountName = serviceAccountName;
    }

    public List<LocalObjectReference> getImagePullSecrets() {
        return imagePullSecrets;
    }

    public void setImagePullSecrets(List<LocalObjectReference> imagePullSecrets) {
        this.imagePullSecrets = imagePullSecrets;
    }

    public String getPriorityClassName() {
        return priorityClassName;
    }

    public void setPriorityClassName(String priorityClassName) {
        this.priorityClassName = priorityClassName;
    }
}
