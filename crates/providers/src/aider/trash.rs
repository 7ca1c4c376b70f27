//! Aider's runs for the trash engine (`capability::trash`).

use crate::capability::trash::{Ask, Planned, Refusal, Trash};
use crate::capability::Capability;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "an Aider run is only ever moved to the trash (cut out of its history file and kept \
         as a file of its own), never deleted outright",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    Err(Refusal::Unsupported(format!(
        "the Aider run {} is part of {}, which holds the repository's other runs too; taking \
         one run out of it is not supported yet",
        ctx.session.id,
        ctx.session.source_path.display()
    )))
}
