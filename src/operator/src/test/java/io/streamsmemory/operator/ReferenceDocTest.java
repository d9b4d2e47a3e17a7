package io.streamsmemory.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * docs/reference.md's field tables are the CRD's schema (crds/), rendered: a field added, renamed or described anew in
 * the API model fails this test until {@code make reference} writes the page again
 * ({@code -Dreference.write=true}), so the reference never says what the CRD does not.
 */
class ReferenceDocTest {
    static final Path PAGE = Path.of("../../docs/reference.md");
    static final String BEGIN =
            "<!-- generated from the CRD by ReferenceDocTest (make reference): edit the API model -->";
    static final String END = "<!-- end of generated -->";

    @Test
    void theReferenceIsTheCrdsSchema() throws Exception {
        String page = Files.readString(PAGE);
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        assertThat(begin).as("%s's %s marker", PAGE, BEGIN).isNotNegative();
        assertThat(end).as("%s's %s marker", PAGE, END).isGreaterThan(begin);
        String generated = BEGIN + "\n\n" + tables() + "\n" + END;
        String current = page.substring(begin, end + END.length());
        if (Boolean.getBoolean("reference.write")) {
            Files.writeString(PAGE, page.replace(current, generated));
            return;
        }
        assertThat(current)
                .as("docs/reference.md is not the CRD's schema: run make reference")
                .isEqualTo(generated);
    }

    /** A table for spec and one for status, every field by its path. */
    static String tables() throws Exception {
        CustomResourceDefinition crd =
                Serialization.unmarshal(Files.readString(Fixtures.CRD), CustomResourceDefinition.class);
        CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
        Map<String, JSONSchemaProps> top =
                version.getSchema().getOpenAPIV3Schema().getProperties();
        StringBuilder out = new StringBuilder();
        out.append("`")
                .append(crd.getSpec().getGroup())
                .append('/')
                .append(version.getName())
                .append("`, kind `")
                .append(crd.getSpec().getNames().getKind())
                .append("` (short name `")
                .append(String.join("`, `", crd.getSpec().getNames().getShortNames()))
                .append("`).\n");
        for (String part : List.of("spec", "status")) {
            out.append("\n### ").append(part).append("\n\n");
            out.append("| field | type | allowed | what it is |\n|---|---|---|---|\n");
            List<String> rows = new ArrayList<>();
            walk(part, top.get(part), rows);
            rows.forEach(out::append);
        }
        return out.toString();
    }

    private static void walk(String path, JSONSchemaProps schema, List<String> rows) {
        Map<String, JSONSchemaProps> children =
                new TreeMap<>(schema.getProperties() == null ? Map.of() : schema.getProperties());
        for (Map.Entry<String, JSONSchemaProps> child : children.entrySet()) {
            String childPath = path + "." + child.getKey();
            JSONSchemaProps field = child.getValue();
            rows.add(row(childPath, field));
            walk(childPath, field, rows);
            if (field.getItems() != null && field.getItems().getSchema() != null) {
                walk(childPath + "[]", field.getItems().getSchema(), rows);
            }
        }
    }

    private static String row(String path, JSONSchemaProps field) {
        String type = field.getType();
        if ("array".equals(type) && field.getItems() != null && field.getItems().getSchema() != null) {
            type = "array of " + field.getItems().getSchema().getType();
        }
        List<String> allowed = new ArrayList<>();
        if (field.getEnum() != null && !field.getEnum().isEmpty()) {
            allowed.add(String.join(
                    ", ",
                    field.getEnum().stream().map(e -> "`" + e.asText() + "`").toList()));
        }
        if (field.getMinimum() != null) {
            allowed.add("≥ " + number(field.getMinimum()));
        }
        if (field.getMaximum() != null) {
            allowed.add("≤ " + number(field.getMaximum()));
        }
        if (field.getPattern() != null) {
            allowed.add(field.getPattern().contains("Mi|Gi") ? "a quantity" : "`" + field.getPattern() + "`");
        }
        String description = field.getDescription() == null ? "" : field.getDescription();
        return "| `" + path + "` | " + type + " | " + String.join("; ", allowed) + " | "
                + description.replace("|", "\\|").replace("\n", " ") + " |\n";
    }

    private static String number(Double value) {
        return value == Math.rint(value) ? Long.toString(value.longValue()) : value.toString();
    }
}
