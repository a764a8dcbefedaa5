package dev.backstage.operator.pool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.operator.testing.MockKubernetes;
import dev.backstage.operator.testing.PrinterColumnPath;
import java.util.LinkedHashMap;
import java.util.Map;

/** What {@code kubectl get} would print for a resource: each printer column of its CRD, evaluated. */
final class PrinterColumns {
    private PrinterColumns() {}

    /** Column name → printed text ({@code ""} when the path resolves to nothing). */
    static Map<String, String> evaluate(String crdResource, JsonNode resource) {
        var crd = MockKubernetes.crd(crdResource);
        Map<String, String> out = new LinkedHashMap<>();
        crd.getSpec()
                .getVersions()
                .get(0)
                .getAdditionalPrinterColumns()
                .forEach(column -> out.put(
                        column.getName(),
                        PrinterColumnPath.evaluate(resource, column.getJsonPath())
                                .map(JsonNode::asText)
                                .orElse("")));
        return out;
    }
}
