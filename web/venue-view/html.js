// htm bound to preact: components written as tagged templates, no build step.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
