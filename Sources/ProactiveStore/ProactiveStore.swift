// ProactiveStore: see the module's issue; sources land here.
