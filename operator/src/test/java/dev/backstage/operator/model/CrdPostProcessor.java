package dev.backstage.operator.model;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What the fabric8 CRD generator cannot express, added to its output before the CRDs are committed:
 * <ul>
 *   <li>printer columns in the order the CR class declares them (the generator sorts them by JSON path, which
 *       put AGE first in {@code kubectl get bwp});</li>
 *   <li>every {@code conditions} list as {@code x-kubernetes-list-type: map} keyed by {@code type}, so server-side
 *       apply tracks each condition's owner: the pool reconciler's Ready and the autoscaler's conditions live in
 *       one list without either writer replacing the other's;</li>
 *   <li>a topology's {@code status.schedules} as a list-map keyed by {@code name}: the schedule firing owns it,
 *       per schedule;</li>
 *   <li>descriptions of the resource, its spec and its status, for {@code kubectl explain}.</li>
 * </ul>
 */
final class CrdPostProcessor {
    /** Kind → descriptions of the resource, its spec and its status (the generator has none for these levels). */
    private static final Map<String, String[]> DESCRIPTIONS = Map.of(
            "BackstageWorkerPool",
                    new String[] {
                        "A pool of Backstage workers: the operator runs it as a Deployment of your image (the Backstage runtime"
                                + " plus your task modules), consuming a BackstageTopology's queues and topics, and scales it"
                                + " from the broker's backlog.",
                        "The pool: image, topology and what it consumes, concurrency, retries, timeouts, shutdown, autoscaling"
                                + " and pod settings.",
                        "What the operator last observed of the pool: replicas, desired replicas, backlog, dead letters and"
                                + " conditions (Ready, BacklogAvailable, ...)."
                    },
            "BackstageTopology",
                    new String[] {
                        "The broker side of Backstage: which provider, how to connect (a Secret), the queues, topics and"
                                + " dead-letter queues the operator declares, and which backend supplies delays and dedupe.",
                        "The broker: provider, connection Secret, queues, topics, dead letters, supplied capabilities, cron"
                                + " schedules and what happens to broker objects on deletion.",
                        "What the operator last observed of the broker: its declared objects, the capabilities, conditions"
                                + " (Ready with a reason from a closed set) and each schedule's last and next tick."
                    });

    private CrdPostProcessor() {}

    static String process(String generatedYaml) {
        CustomResourceDefinition crd = Serialization.unmarshal(generatedYaml, CustomResourceDefinition.class);
        Class<?> resource = resourceClass(crd.getSpec().getNames().getKind());
        List<String> declared = Arrays.stream(resource.getAnnotationsByType(AdditionalPrinterColumn.class))
                .map(AdditionalPrinterColumn::name)
                .toList();
        for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
            if (version.getAdditionalPrinterColumns() != null) {
                List<CustomResourceColumnDefinition> columns = new ArrayList<>(version.getAdditionalPrinterColumns());
                columns.sort(Comparator.comparingInt(c -> declared.indexOf(c.getName())));
                version.setAdditionalPrinterColumns(columns);
            }
            JSONSchemaProps root = version.getSchema().getOpenAPIV3Schema();
            markConditions(root);
            markScheduleStatuses(root);
            String[] texts = DESCRIPTIONS.get(crd.getSpec().getNames().getKind());
            if (texts != null) {
                root.setDescription(texts[0]);
                root.getProperties().get("spec").setDescription(texts[1]);
                root.getProperties().get("status").setDescription(texts[2]);
            }
        }
        return Serialization.asYaml(crd);
    }

    private static void markConditions(JSONSchemaProps schema) {
        if (schema == null || schema.getProperties() == null) {
            return;
        }
        for (Map.Entry<String, JSONSchemaProps> property :
                schema.getProperties().entrySet()) {
            JSONSchemaProps value = property.getValue();
            if ("conditions".equals(property.getKey())
                    && "array".equals(value.getType())
                    && value.getItems() != null
                    && value.getItems().getSchema() != null
                    && value.getItems().getSchema().getProperties() != null
                    && value.getItems().getSchema().getProperties().containsKey("type")) {
                value.setXKubernetesListType("map");
                value.setXKubernetesListMapKeys(List.of("type"));
                List<String> required = new ArrayList<>(
                        value.getItems().getSchema().getRequired() == null
                                ? List.of()
                                : value.getItems().getSchema().getRequired());
                if (!required.contains("type")) {
                    required.add("type");
                    value.getItems().getSchema().setRequired(required);
                }
            }
            markConditions(value);
        }
    }

    private static void markScheduleStatuses(JSONSchemaProps root) {
        JSONSchemaProps status =
                root.getProperties() == null ? null : root.getProperties().get("status");
        JSONSchemaProps schedules = status == null || status.getProperties() == null
                ? null
                : status.getProperties().get("schedules");
        if (schedules != null
                && schedules.getItems() != null
                && schedules.getItems().getSchema() != null) {
            schedules.setXKubernetesListType("map");
            schedules.setXKubernetesListMapKeys(List.of("name"));
            schedules.getItems().getSchema().setRequired(List.of("name"));
        }
    }

    private static Class<?> resourceClass(String kind) {
        try {
            return Class.forName(CrdPostProcessor.class.getPackageName() + "." + kind);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "no CR class for kind " + kind + " in " + CrdPostProcessor.class.getPackageName(), e);
        }
    }
}
