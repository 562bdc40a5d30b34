"""An executor on another machine: started through ``ssh`` (or any command), spoken to over
its standard input and output in frames (:mod:`.wire`), served there by :mod:`.server`,
driven here by :class:`.client.CommandExecutor`, which sends the files a request reads
(:mod:`.files`); :mod:`.hosts` names hosts, :mod:`.router` sends each request to the
executor of its device's machine, and :mod:`.install` puts this version on a host that lacks
it (the wheel of the running code, from :mod:`.wheel`)."""
