package io.streamsmemory.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No method of the operator's or the engine's main code runs over {@link #MAX_LINES} lines, from its declaration to
 * its closing brace: a method is read without scrolling. A source scan (no Java parser is among the build's
 * dependencies): comments, strings and text blocks are blanked, then each method or constructor is followed from the
 * line that declares it to the brace that closes it.
 */
class MethodLengthTest {
    /** The operator's methods: each reads as one step of a few named ones. */
    static final int MAX_LINES = 50;
    /** The engine's: a sizing step states its formula whole, with its sources, in one place. */
    static final int MAX_ENGINE_LINES = 80;

    private static final Pattern DECLARATION =
            Pattern.compile("^\\s*(?:(?:public|protected|private|static|final|synchronized|abstract|default)\\s+)*"
                    + "(?:<[^>]+>\\s+)?(?:[\\w<>\\[\\],.?]+(?:\\s*<[^;=]*>)?\\s+)?(\\w+)\\s*\\([^;=]*$");
    private static final List<String> NOT_METHODS =
            List.of("if", "for", "while", "switch", "catch", "try", "synchronized", "return", "new", "else", "throw");

    @Test
    void noMethodOfTheOperatorIsLongerThanFiftyLinesNorOfTheEngineThanEighty() throws IOException {
        assertThat(longMethodsUnder(Path.of("src/main/java"), MAX_LINES))
                .as("methods over %d lines", MAX_LINES)
                .isEmpty();
        assertThat(longMethodsUnder(Path.of("../engine/src/main/java"), MAX_ENGINE_LINES))
                .as("methods over %d lines", MAX_ENGINE_LINES)
                .isEmpty();
    }

    private static List<String> longMethodsUnder(Path root, int maxLines) throws IOException {
        assertThat(root).isDirectory();
        List<String> tooLong = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> tooLong.addAll(longMethods(f, maxLines)));
        }
        return tooLong;
    }

    @Test
    void theScanFindsAMethodOverTheLimit() {
        List<String> lines = new ArrayList<>(List.of("class A {", "    void long(String s) {"));
        for (int i = 0; i < MAX_LINES; i++) {
            lines.add("        s = \"{\" + s; // }");
        }
        lines.addAll(List.of("    }", "    record R(int a) {}", "}"));
        assertThat(longMethods(Path.of("A.java"), lines, MAX_LINES))
                .containsExactly("A.java:2 long (" + (MAX_LINES + 2) + " lines)");
    }

    private static List<String> longMethods(Path file, int maxLines) {
        try {
            return longMethods(file, Files.readAllLines(file), maxLines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> longMethods(Path file, List<String> source, int maxLines) {
        List<String> code = blanked(source);
        List<String> found = new ArrayList<>();
        for (int i = 0; i < code.size(); i++) {
            Matcher m = DECLARATION.matcher(code.get(i));
            if (!m.matches()
                    || NOT_METHODS.contains(m.group(1))
                    || code.get(i).matches(".*\\b(class|record|interface|enum)\\b.*")) {
                continue;
            }
            int open = i;
            while (open < code.size()
                    && !code.get(open).contains("{")
                    && !code.get(open).contains(";")) {
                open++;
            }
            if (open == code.size() || !code.get(open).contains("{")) {
                continue;
            }
            int close = closingLine(code, open);
            int lines = close - i + 1;
            if (lines > maxLines) {
                found.add(file + ":" + (i + 1) + " " + m.group(1) + " (" + lines + " lines)");
            }
            i = close;
        }
        return found;
    }

    private static int closingLine(List<String> code, int open) {
        int depth = 0;
        for (int k = open; k < code.size(); k++) {
            for (char c : code.get(k).toCharArray()) {
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            if (depth == 0) {
                return k;
            }
        }
        return code.size() - 1;
    }

    /** The source with comments, string and char literals and text blocks blanked, line for line. */
    static List<String> blanked(List<String> source) {
        String text = String.join("\n", source);
        StringBuilder code = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            int end = endOfNonCode(text, i);
            if (end == i) {
                code.append(text.charAt(i++));
                continue;
            }
            for (; i < end; i++) {
                code.append(text.charAt(i) == '\n' ? '\n' : ' ');
            }
        }
        return List.of(code.toString().split("\n", -1));
    }

    /** Where a comment or literal starting at {@code i} ends (exclusive); {@code i} when code starts there. */
    private static int endOfNonCode(String text, int i) {
        if (text.startsWith("//", i)) {
            int end = text.indexOf('\n', i);
            return end < 0 ? text.length() : end;
        }
        if (text.startsWith("/*", i)) {
            return after(text, "*/", i + 2);
        }
        if (text.startsWith("\"\"\"", i)) {
            return after(text, "\"\"\"", i + 3);
        }
        char c = text.charAt(i);
        if (c != '"' && c != '\'') {
            return i;
        }
        int k = i + 1;
        while (k < text.length() && text.charAt(k) != c && text.charAt(k) != '\n') {
            k += text.charAt(k) == '\\' ? 2 : 1;
        }
        return Math.min(text.length(), k + 1);
    }

    private static int after(String text, String closing, int from) {
        int end = text.indexOf(closing, from);
        return end < 0 ? text.length() : end + closing.length();
    }
}
