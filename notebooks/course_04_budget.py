import marimo

__generated_with = "0.25.2"
app = marimo.App(
    width="medium",
    app_title="First course 4: Spending a budget: composition",
    css_file="lesson.css",
    html_head_file="lesson_head.html",
)


@app.cell
def _():
    import marimo as mo

    from app import course, lessons
    from app.course import pictures
    from app.lessons import md

    ch = course.chapter("budget")
    return ch, course, lessons, md, mo, pictures


@app.cell
def _(ch, course, md):
    md(
        f"# {ch.number}. {ch.title}\n\n<small>A first course in differential privacy · chapter {ch.number} of "
        f"{len(course.CHAPTERS)}</small>\n\n{ch.text}"
    )
    return


@app.cell
def _(ch, lessons):
    controls = lessons.controls(ch.control)
    lessons.panel(controls, title="Move it and watch the picture", sidebar=False)
    return (controls,)


@app.cell
def _(controls, lessons):
    p = lessons.values(controls)
    return (p,)


@app.cell
def _(ch, md, mo, p, pictures):
    _value = getattr(p, ch.control)
    _pic = pictures.picture(ch.slug, _value)
    # the app's picture: every stop of the control travels with it, so its own slider redraws it at once
    mo.vstack(
        [
            pictures.slide(ch.slug, _value),
            md(f"<small>{pictures.LESSON_SLIDER_NOTE}</small>"),
            md(_pic.reading),
            md(f"<small>**What to notice:** {ch.notice}</small>"),
        ]
    )
    return


@app.cell
def _(ch, lessons, md, mo):
    ex = lessons.Exercise.from_check(ch.question, ch.check, ch.solution)
    answer = ex.input
    mo.vstack([md("## Check what you saw"), ex.show(answer)])
    return answer, ex


@app.cell
def _(answer, ex):
    ex.feedback(answer)
    return


@app.cell
def _(ch, lessons, p):
    lessons.course_links(ch, p)
    return


if __name__ == "__main__":
    app.run()
