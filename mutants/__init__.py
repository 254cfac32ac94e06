"""Rule mutants: a catalogue of plausible misreadings of the rules, planted one at a time to
check that the tests catch each (``make mutants``)."""
