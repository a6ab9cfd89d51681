// What each decision of an approval form does, as the person asked reads it beside the choices.

export const approvalChoices = {
  /** The title of the form's one field. */
  title: 'Decision',
  escalation: 'allow-once runs this one command with the wider sandbox; reject refuses it.',
  command: 'allow-once runs this command; reject refuses it.',
  /** `prefix`: the command prefix allow-always allows for the rest of the session. */
  commandAlways: (prefix: readonly string[]) =>
    `allow-once runs this command; allow-always also allows "${prefix.join(' ')}" for the rest of this session; reject refuses it.`,
};
