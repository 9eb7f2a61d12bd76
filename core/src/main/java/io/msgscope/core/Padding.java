package io.msgscope.core;

/** What fills a payload after the header (R2): zeros (seed 000/001) or random bytes (seed 002). */
public enum Padding {
    ZEROS, RANDOM
}
