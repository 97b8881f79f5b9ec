/*
 * License header { not a brace }
 */
package com.example.sample;

import java.util.List;
import java.util.Map;

/**
 * Javadoc with a brace: {@code Map<String, Object>}.
 */
@SuppressWarnings("unchecked")
public class Sample extends Base
        implements Runnable {

    private static final String S = "}{\"";
    private static final char C = '}';
    private static final char Q = '\'';
    private final String block = """
        a text block with } and " quotes
        """;

    @Override
    public void run() {
        // a comment with a brace }
        System.out.println("{" + C);
    }

    public static void main(String[] args)
            throws Exception {
        new Sample().run();
    }

    enum Color { RED, GREEN }
}

interface Other {
    void x();
}
